package engine_test

// Red-team cases written apart from the engine's own tests, against the
// pieces of a key (pieces.go) and the readings composed on decoded
// strings. Each input is either what a real encoder wrote (the comment
// names the command) or the shape a real issuer gives its keys and ids.
// Leak cases: a value one tool withheld, or a piece of a key of 16
// characters or more, must not come back in a later output of the
// session, whichever way the agent or an ordinary backend chose to read
// or encode it. Ordinary cases: a later output that repeats nothing
// withheld (a sibling id, a public key, a date) must pass unchanged.
// This file holds what held; attack_red_open_test.go (build tag attack)
// holds what did not, each asserting the secure or ordinary behaviour.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

const (
	redCreateKey   = `{"name":"create_key","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"key":{"type":"string","x-sensitive":true}}}}`
	redReadProfile = `{"name":"read_profile","description":"d","annotations":{"sensitiveHint":true}}`
	redReadLog     = `{"name":"read_log","description":"d"}`
)

// redSession returns an engine with create_key (an x-sensitive key),
// read_profile (sensitiveHint, no schema) and read_log (ordinary).
func redSession(t *testing.T) *engine.Engine {
	t.Helper()
	e := engine.New(&engine.Options{Origin: "https://app.example"})
	for _, d := range []string{redCreateKey, redReadProfile, redReadLog} {
		if _, err := e.Register(d); err != nil {
			t.Fatalf("Register: %v", err)
		}
	}
	return e
}

// redWithhold has create_key withhold each of keys at its x-sensitive
// member, one call each.
func redWithhold(t *testing.T, e *engine.Engine, keys ...string) {
	t.Helper()
	for _, k := range keys {
		data, _ := json.Marshal(map[string]string{"id": "k1", "key": k})
		r := e.OutputOf("create_key", engine.Outcome{Kind: engine.Returned, Data: string(data)})
		if r.Err != nil || r.Held != 1 {
			t.Fatalf("create_key did not withhold its key: %+v", r)
		}
	}
}

// redWithholdWhole has read_profile return data (JSON), withheld whole.
func redWithholdWhole(t *testing.T, e *engine.Engine, data string) {
	t.Helper()
	r := e.OutputOf("read_profile", engine.Outcome{Kind: engine.Returned, Data: data})
	if r.Err != nil || r.Held == 0 {
		t.Fatalf("read_profile was not withheld: %+v", r)
	}
}

// redRead returns read_log's view of an output of kind.
func redRead(t *testing.T, e *engine.Engine, kind engine.OutcomeKind, data string) string {
	t.Helper()
	r := e.OutputOf("read_log", engine.Outcome{Kind: kind, Data: data})
	if r.Err != nil {
		t.Fatalf("read_log failed: %v", r.Err)
	}
	return r.Agent
}

// redGives reports whether view gives s back: in its text, or in any of
// its JSON strings (escapes decoded, text items joined), in any case.
func redGives(view, s string) bool {
	s = strings.ToLower(s)
	if strings.Contains(strings.ToLower(view), s) {
		return true
	}
	var v any
	if json.Unmarshal([]byte(view), &v) != nil {
		return false
	}
	var joined strings.Builder
	found := false
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			found = found || strings.Contains(strings.ToLower(x), s)
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			for k, y := range x {
				found = found || strings.Contains(strings.ToLower(k), s)
				walk(y)
			}
			if x["type"] == "text" {
				if t, ok := x["text"].(string); ok {
					joined.WriteString(t)
				}
			}
		}
	}
	walk(v)
	return found || strings.Contains(strings.ToLower(joined.String()), s)
}

// redSliceReads has read_log return key in reads of n characters at
// every offset from 0 (a read_log({offset, length}) over a text that is
// the key), and fails for each read whose slice reaches the agent.
func redSliceReads(t *testing.T, e *engine.Engine, key string, n int) {
	t.Helper()
	leaked := 0
	for i := 0; i+n <= len(key); i++ {
		s := key[i : i+n]
		if v := redRead(t, e, engine.Text, s); redGives(v, s) {
			if leaked++; leaked <= 3 {
				t.Errorf("read of %d at offset %d gave %q back: %s", n, i, s, v)
			}
		}
	}
	if leaked > 3 {
		t.Errorf("... %d reads of %d characters gave their slice back in all", leaked, n)
	}
}

// redLeakCase is a value withheld and later outputs that carry it, or a
// piece of it, in some form; none of gone may reach the agent.
type redLeakCase struct {
	name   string
	keys   []string // withheld at create_key's x-sensitive member
	whole  string   // else read_profile's output, withheld whole
	kind   engine.OutcomeKind
	laters []string
	gone   []string // what must not come back, in any case
}

func runRedLeakCases(t *testing.T, cases []redLeakCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := redSession(t)
			if c.whole != "" {
				redWithholdWhole(t, e, c.whole)
			} else {
				redWithhold(t, e, c.keys...)
			}
			for _, l := range c.laters {
				v := redRead(t, e, c.kind, l)
				for _, g := range c.gone {
					if redGives(v, g) {
						t.Errorf("%q came back:\nlater: %q\nview:  %s", g, l, v)
					}
				}
			}
		})
	}
}

// redOrdinaryCase is what a session withheld and a later ordinary output
// that repeats none of it, which must reach the agent unchanged.
type redOrdinaryCase struct {
	name  string
	keys  []string // withheld at create_key's x-sensitive member
	whole string   // and read_profile's output, withheld whole
	kind  engine.OutcomeKind
	later string
}

func runRedOrdinaryCases(t *testing.T, cases []redOrdinaryCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := redSession(t)
			redWithhold(t, e, c.keys...)
			if c.whole != "" {
				redWithholdWhole(t, e, c.whole)
			}
			kind := c.kind
			if kind == "" {
				kind = engine.Text
			}
			got := redRead(t, e, kind, c.later)
			if kind == engine.Text && got != c.later || kind == engine.Returned && !redSameJSON(got, c.later) {
				t.Errorf("an ordinary later output was changed\nlater: %q\nview:  %q", c.later, got)
			}
		})
	}
}

// redSameJSON reports whether a and b are the same JSON value.
func redSameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	p, _ := json.Marshal(x)
	q, _ := json.Marshal(y)
	return string(p) == string(q)
}

// openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024
const redPrivPEM = "-----BEGIN PRIVATE KEY-----\nMIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAMy04w/VF2ke4hkY\n1J9AtwY28tGub0ylXJHvmWwC+NSiwf+QS5L3b+YM3jZLLc3qEDbfd1dxBaziV/br\nQfWcn2twqwbnG+MK/Uz0c7EJS5teIKz/3bYkHr4kvf8X59OjiVu4jhUfp+JwIkP9\nK99QPTmiIxzZsZ6e4pveUG8+FsHzAgMBAAECgYBpqAtyRogYx8nnLjvAHsTYvk/C\nDgiARPFsmYBUkYwhJAiBgdaf+nqVAJtI5rCzkVXhHKIaTcmiHAlO9spKnRZij4Yc\nFp0TrmrQ+zQlUWrWxegGMFluHapMDi5gd+4IVLHic4falqh5T9ADdabPiXE21E9G\nGpA+mz5bfxuzWg1CcQJBAO0C/OG9iyC/Egy1h5zcXjkrQ3iKy5G2DbKoo4d4Mjkx\nqEY6+Y+eL0ScwYzV84jHsPvHC/qr5V9iTbdKZs7Aq8cCQQDdG1XNiX6nEIIHzt5K\nVM84EdpCxkgTWhHYEYX1aAuXR9RXl3ZUwZNhswuD+wDkcH3JHJyI8I3i732ndgXZ\nNcB1AkEAgtFsXPjuqvNrdgJYSNdFVo6vngAV3mY650q3gBVyuyjSdXkluASamGdh\nWWfaFLwLztyNmx137A7pUGrLlgC4jwJBALclJkxrAHLHtL1c+DnfyAksmHrJHPiS\nmcc8tJZTCY7Um6m2Nvj7ouXBVd+LsPCH0VkdjvfLMevw7kcg9rU11eUCQHclxaEf\nHSGi6Kj6jJys3coicmAHUtdgSIIl4IhdNJ3xL6I+C028ym2B6JqOND7wqKAqbzF1\ngmY1jCplRTDwBwg=\n-----END PRIVATE KEY-----\n"

// openssl pkey -in k.pem -pubout
const redPubPEM = "-----BEGIN PUBLIC KEY-----\nMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDMtOMP1RdpHuIZGNSfQLcGNvLR\nrm9MpVyR75lsAvjUosH/kEuS92/mDN42Sy3N6hA233dXcQWs4lf260H1nJ9rcKsG\n5xvjCv1M9HOxCUubXiCs/922JB6+JL3/F+fTo4lbuI4VH6ficCJD/SvfUD05oiMc\n2bGenuKb3lBvPhbB8wIDAQAB\n-----END PUBLIC KEY-----\n"

// openssl req -new -x509 -key k.pem -subj /CN=api.example -days 365
const redCertPEM = "-----BEGIN CERTIFICATE-----\nMIICCDCCAXGgAwIBAgIUckaNLmmDghmKctPaCiX0MkVbbKIwDQYJKoZIhvcNAQEL\nBQAwFjEUMBIGA1UEAwwLYXBpLmV4YW1wbGUwHhcNMjYxMTI4MjEwNzMyWhcNMjcx\nMTI4MjEwNzMyWjAWMRQwEgYDVQQDDAthcGkuZXhhbXBsZTCBnzANBgkqhkiG9w0B\nAQEFAAOBjQAwgYkCgYEAzLTjD9UXaR7iGRjUn0C3Bjby0a5vTKVcke+ZbAL41KLB\n/5BLkvdv5gzeNkstzeoQNt93V3EFrOJX9utB9Zyfa3CrBucb4wr9TPRzsQlLm14g\nrP/dtiQeviS9/xfn06OJW7iOFR+n4nAiQ/0r31A9OaIjHNmxnp7im95Qbz4WwfMC\nAwEAAaNTMFEwHQYDVR0OBBYEFFB6N3N80L5VHaz/ppqFZh5fCzQWMB8GA1UdIwQY\nMBaAFFB6N3N80L5VHaz/ppqFZh5fCzQWMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZI\nhvcNAQELBQADgYEAAltgvvH5pdVATT8jnVNWyPSGqBG0IGWr0GcpCFJurpb6i5lv\n260dB1Yoohn50qCTjLmxlpmSW75R624SPztHyBBPv6Vc09sYZUq8NKw/FrevIKK9\nM+vF81Wxx1tAa1icaPOkIJu+s56QMUAA3WZqddgwUWX8oj5snLSBprkPAdA=\n-----END CERTIFICATE-----\n"

// openssl pkey -in k.pem -outform DER | xxd -p (the key above as PKCS#1
// DER, 60 hexadecimal digits a line)
const redPrivDERHex = "3082025d02010002818100ccb4e30fd517691ee21918d49f40b70636f2d1\nae6f4ca55c91ef996c02f8d4a2c1ff904b92f76fe60cde364b2dcdea1036\ndf77577105ace257f6eb41f59c9f6b70ab06e71be30afd4cf473b1094b9b\n5e20acffddb6241ebe24bdff17e7d3a3895bb88e151fa7e2702243fd2bdf\n503d39a2231cd9b19e9ee29bde506f3e16c1f3020301000102818069a80b\n72468818c7c9e72e3bc01ec4d8be4fc20e088044f16c998054918c212408\n8181d69ffa7a95009b48e6b0b39155e11ca21a4dc9a21c094ef6ca4a9d16\n628f861c169d13ae6ad0fb3425516ad6c5e80630596e1daa4c0e2e6077ee\n0854b1e27387da96a8794fd00375a6cf897136d44f461a903e9b3e5b7f1b\nb35a0d4271024100ed02fce1bd8b20bf120cb5879cdc5e392b43788acb91\nb60db2a8a38778323931a8463af98f9e2f449cc18cd5f388c7b0fbc70bfa\nabe55f624db74a66cec0abc7024100dd1b55cd897ea7108207cede4a54cf\n3811da42c648135a11d81185f5680b9747d457977654c19361b30b83fb00\ne4707dc91c9c88f08de2ef7da77605d935c07502410082d16c5cf8eeaaf3\n6b76025848d745568eaf9e0015de663ae74ab7801572bb28d2757925b804\n9a9867615967da14bc0bcedc8d9b1d77ec0ee9506acb9600b88f024100b7\n25264c6b0072c7b4bd5cf839dfc8092c987ac91cf89299c73cb49653098e\nd49ba9b636f8fba2e5c155df8bb0f087d1591d8ef7cb31ebf0ee4720f6b5\n35d5e502407725c5a11f1d21a2e8a8fa8c9cacddca2272600752d7604882\n25e0885d349df12fa23e0b4dbcca6d81e89a8e343ef0a8a02a6f31758266\n358c2a654530f00708\n"

// openssl asn1parse -in k.pem -strparse 22: the line of the private
// exponent d.
const redAsn1D = "  144:d=1  hl=3 l= 128 prim: INTEGER           :69A80B72468818C7C9E72E3BC01EC4D8BE4FC20E088044F16C998054918C2124088181D69FFA7A95009B48E6B0B39155E11CA21A4DC9A21C094EF6CA4A9D16628F861C169D13AE6AD0FB3425516AD6C5E80630596E1DAA4C0E2E6077EE0854B1E27387DA96A8794FD00375A6CF897136D44F461A903E9B3E5B7F1BB35A0D4271"

// node: crypto.createPrivateKey(pem).export({format: "jwk"}), d and p.
const redJWKDP = `{"d":"aagLckaIGMfJ5y47wB7E2L5Pwg4IgETxbJmAVJGMISQIgYHWn_p6lQCbSOaws5FV4RyiGk3JohwJTvbKSp0WYo-GHBadE65q0Ps0JVFq1sXoBjBZbh2qTA4uYHfuCFSx4nOH2paoeU_QA3Wmz4lxNtRPRhqQPps-W38bs1oNQnE","p":"7QL84b2LIL8SDLWHnNxeOStDeIrLkbYNsqijh3gyOTGoRjr5j54vRJzBjNXziMew-8cL-qvlX2JNt0pmzsCrxw"}`

// openssl pkey -in pub.pem -pubin -noout -text (the public key's dump)
const redPubText = "Public-Key: (1024 bit)\nModulus:\n    00:cc:b4:e3:0f:d5:17:69:1e:e2:19:18:d4:9f:40:\n    b7:06:36:f2:d1:ae:6f:4c:a5:5c:91:ef:99:6c:02:\n    f8:d4:a2:c1:ff:90:4b:92:f7:6f:e6:0c:de:36:4b:\n    2d:cd:ea:10:36:df:77:57:71:05:ac:e2:57:f6:eb:\n    41:f5:9c:9f:6b:70:ab:06:e7:1b:e3:0a:fd:4c:f4:\n    73:b1:09:4b:9b:5e:20:ac:ff:dd:b6:24:1e:be:24:\n    bd:ff:17:e7:d3:a3:89:5b:b8:8e:15:1f:a7:e2:70:\n    22:43:fd:2b:df:50:3d:39:a2:23:1c:d9:b1:9e:9e:\n    e2:9b:de:50:6f:3e:16:c1:f3\nExponent: 65537 (0x10001)\n"

const (
	// A Stripe secret key's shape: sk_live_51, the account's id, then
	// random characters. The same account's publishable key and its id
	// (acct_1…) share the account part.
	redStripeSecret      = "sk_live_51HqLyjWDarjtT1zdp7dcXk4Rm9QvB2sLw8TnJ3yE"
	redStripePublishable = "pk_live_51HqLyjWDarjtT1zdQ3vNw8LmK2pR7sYt4XbGc6Hj"
	redStripeAccount     = "acct_1HqLyjWDarjtT1zd"
	// redStripeSecretPart is what the secret key holds past its account's
	// id, the part no other value shares: pieces are looked for there
	// only (docs/agent-view.md).
	redStripeSecretPart = "p7dcXk4Rm9QvB2sLw8TnJ3yE"

	// node: an RS256 JWT signed with crypto.sign("sha256", …, a 2048-bit
	// key from generateKeyPairSync("rsa")); its signature is 342
	// characters.
	redRS256JWT = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1XzEiLCJpYXQiOjE3NzM1MDAwMDB9.nH8W6YEFXy6DU0XBE5SiS9Pbu3CdXeXsTBVdRMh1035AK2wiLDgqSHVJhQGazF-XRgXABsGzeXTAxIqbia9fhXgW2rR2yzDPHNyfUO4cDBa3M2C1YCQHGip3cQZNVF2ip12qSdQaFtyESB1J-mjuF1Nj7lPR0-7lTBeautMJh4brDEH3wbWLvrjWFAhXXqYwb5FH3-TUoni3CPCvBIw0eTQbV3fjxe_lTg6UbRyyZcbwg60-0ZUGQW09ehgYjnM-eC3W4oZ-XtiNB-WJHZHxLoD8-_1c_D0zkfMM5qVQk6_L9ZQO-xk3Rj1bhyyanznEsJKemEFk78sRAGDSdl58gg"

	// node: two HS256 JWTs of one issuer (crypto.createHmac), for users
	// u_1 and u_2.
	redHS256User1 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1XzEiLCJyb2xlIjoibWVtYmVyIiwiaWF0IjoxNzczNTAwMDAwfQ.7E6O7ygGy2Y696f89ifMoivR8v74DWK2hBREKLhVJX8"
	redHS256User2 = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1XzIiLCJyb2xlIjoibWVtYmVyIiwiaWF0IjoxNzczNTAwMDAwfQ.0Vp25EA7ekTv0uR4RVdtgeaW3VjrPc4HxoF1zvDxjz0"

	// python3: "IQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJH" +
	// base64.b64encode(os.urandom(420)), an AWS STS session token's shape
	// (596 characters).
	redSTSToken = "IQoJb3JpZ2luX2VjEHYaCXVzLWVhc3QtMSJH4nmUbBlC6tx7cWOzQjie39KZuJRkpOhpOd3PJlUc9JPwYvcKCaG5yOJwo8f+tNBTzD9860unaP4h5SDn+tPxVXm6rqaZE7jGtEKwztn0zNwFWODdM9FCybyIMBEdEJBLsC/TLiuBIZvn21VgP4Z7L5ktZRM0GxO9kMQUNvVslky4V7BwwKjw4TmpFhWRuHW/EI0IrrmZpsZt8EAeTIRN0A1XGtemnE/90PkgvgfR5697jyATI2umhPU3pckcskQN/2yGFddhAUweB30W1cKHFVV1LYgx9nIfNE0LJcp8u+OoNEiKlfEG7Byk4P7lCAugJM6C988N9t5GLIvah6IyxRnd7zbZY07VTiy6EMnmwIqJtuspdtBlQZ8DM2q9EPn5xLFdBjerBxU6gumnhHtGDaHaFRcspFMhj/FQK88sUwvWnHIpV7Loq3QEqrZErwZhryKV5mC8DXp8AMzKbAIhoXVeIV8KX4zvFF9ooHdKp/O4kweuTct874I9qc5R5fSE/mA5IqIp9xydhpFTwJ/T3iE3SvOidLeCjXdX512gD9XIpuRP"

	// A password of letters, digits and symbols, as a password manager
	// generates them.
	redPassword = "xK9#mP2$vL8@qR4!wZ7&nT5%"

	// python3: [str(uuid.uuid1()) for _ in range(3)], one host's ids.
	redUUID1a, redUUID1b, redUUID1c = "c074906e-eb6f-11f1-82af-02fc00000001", "c0749a6e-eb6f-11f1-82af-02fc00000001", "c0749c08-eb6f-11f1-82af-02fc00000001"

	// python3: "%08x%s%06x" % (t+i, os.urandom(5).hex(), c+i), MongoDB's
	// ObjectId layout (time, the process's random value, a counter).
	redOID1, redOID2, redOID3 = "6b0b429e1da1df2cec1a2b00", "6b0b429f1da1df2cec1a2b01", "6b0b42a01da1df2cec1a2b02"

	// python3: ULIDs (48-bit milliseconds, 80 random bits, Crockford's
	// base32) of one second.
	redULID1, redULID2, redULID3 = "01M8HZRF2CGX19100XYMJQ78P1", "01M8HZRF2KH7DA72MDZB63CBWB", "01M8HZRF2TR3MQ3JZCG4A11DZ6"

	// AWS's documented example of a presigned S3 URL (SigV4 query).
	redPresigned = "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20260314%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260314T153045Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"

	// A Slack incoming webhook's shape: team id, webhook id, secret.
	redSlackHook = "https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/xZ9kQ2mV7pLw4RtY8sNb3HcJ"

	// python3: a PNG of 8×8 pixels written with zlib and struct, base64.
	redPNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAzElEQVR4nGNgUPXKn7LzHrOGb9H0PQ/ZtANKZ+1/wqkXzMBtEFo1/8hLPuOI2kXH3wiaRTcsPfVexDKOQcw6oXXV+S+Sdskday99l3FM695w9Ze8SyaDolv2hK23/qt45k3ecZdJ3adw2u4HrFr+JQw6gWWzDzzl0g+pnHf4Ba9ReM3CY68FTKPqGcxjGped/iBqFd+y8txnCduk9jUXv0k7pHYxOKX3bLz2W8E1q3/LzX/KHrmTtt9hVPMumMqA5sqKuYee8xiGVS8AAG9GWgEhlgGgAAAAAElFTkSuQmCC"
)

// redSliceCase is a value create_key withholds and the key an agent then
// reads back in slices of 16 (the value itself, or a JWT's signature).
type redSliceCase struct{ name, withheld, key string }

func runRedSliceCases(t *testing.T, cases []redSliceCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := redSession(t)
			redWithhold(t, e, c.withheld)
			redSliceReads(t, e, c.key, 16)
		})
	}
}

// redSignature is a JWT's signature.
func redSignature(jwt string) string { return jwt[strings.LastIndexByte(jwt, '.')+1:] }

// TestRedSlicesOfAKeyReadByOffset: read_log({offset, length}) over a text
// that is a withheld key, in reads of 16 characters at every offset,
// gives none of them back.
func TestRedSlicesOfAKeyReadByOffset(t *testing.T) {
	runRedSliceCases(t, []redSliceCase{
		{"StripeSecret", redStripeSecret, redStripeSecretPart},
		{"HS256JWTSignature", redHS256User1, redSignature(redHS256User1)},
		// its 80 random bits; the first ten characters are the time
		{"ULID", redULID1, redULID1[10:]},
		{"AWSSecretWithSlashes", redAWSRandomSecret, redAWSRandomSecret},
		// the secret past the key's id, which SendGrid's API lists
		{"SendGridKey", redSendGridKey, redSendGridKey[strings.LastIndexByte(redSendGridKey, '.')+1:]},
	})
}

// TestRedLeaks: withheld values, or pieces of them, written again by
// the way an agent chose to read them or an ordinary backend encodes.
func TestRedLeaks(t *testing.T) {
	slice := redStripeSecret[20:36] // "tT1zdp7dcXk4Rm9Q"
	runRedLeakCases(t, []redLeakCase{
		// node: Buffer.from(slice).toString(enc) for read_file({encoding})
		{name: "SliceInBase64", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"dFQxemRwN2RjWGs0Um05UQ=="}, gone: []string{slice, "dFQxemRwN2RjWGs0Um05UQ=="}},
		{name: "SliceInHex", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"7454317a6470376463586b34526d3951"}, gone: []string{slice, "7454317a6470376463586b34526d3951"}},
		{name: "SliceInUTF16LEReadAsCJK", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"呴稱灤搷塣㑫浒儹"}, gone: []string{"呴稱灤搷塣㑫浒儹"}},
		{name: "SliceAsNodeBufferJSON", keys: []string{redStripeSecret}, kind: engine.Returned, laters: []string{`{"type":"Buffer","data":[116,84,49,122,100,112,55,100,99,88,107,52,82,109,57,81]}`}, gone: []string{"116,84,49,122,100,112,55,100,99,88,107,52,82,109,57,81"}},
		{name: "SliceUpperCased", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"TT1ZDP7DCXK4RM9Q"}, gone: []string{slice}},
		// a search tool's match with 16 characters of context either side
		{name: "SearchContextAroundAMatch", keys: []string{redStripeSecret}, kind: engine.Returned,
			laters: []string{`{"matches":[{"file":".env","line":3,"before":"dp7dcXk4Rm9QvB2s","match":"Lw8T","after":"nJ3yE\n# webhook"}]}`},
			gone:   []string{"dp7dcXk4Rm9QvB2s"}},
		{name: "PieceAtTheEndOfALogLine", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"2026-03-14T15:30:45Z charge failed key=…Rm9QvB2sLw8TnJ3yE"}, gone: []string{"Rm9QvB2sLw8TnJ3y"}},
		// an MCP result whose text items are 7 characters each, an image
		// and an empty item between two of them: a client joins the texts.
		{name: "TextItemsOfSevenAcrossAnImage", keys: []string{redStripeSecret}, kind: engine.Returned,
			laters: []string{`{"content":[{"type":"text","text":"sk_live"},{"type":"text","text":"_51HqLy"},{"type":"image","data":"` + redPNG + `","mimeType":"image/png"},{"type":"text","text":"jWDarjt"},{"type":"text","text":""},{"type":"text","text":"T1zdp7d"},{"type":"text","text":"cXk4Rm9"},{"type":"text","text":"QvB2sLw"},{"type":"text","text":"8TnJ3yE"}]}`},
			gone:   []string{redStripeSecret}},
		// the private key converted by ordinary tools
		{name: "PrivateKeyDERHexWrapped", keys: []string{redPrivPEM}, kind: engine.Text, laters: []string{redPrivDERHex}, gone: []string{"69a80b72468818c7c9e72e3bc01e"}},
		{name: "PrivateKeyAsn1parseLine", keys: []string{redPrivPEM}, kind: engine.Text, laters: []string{redAsn1D}, gone: []string{"69A80B72468818C7C9E72E3BC01EC4D8"}},
		{name: "PrivateKeyJWK", keys: []string{redPrivPEM}, kind: engine.Returned, laters: []string{redJWKDP}, gone: []string{"aagLckaIGMfJ5y47wB7E2L5Pwg4IgETx", "7QL84b2LIL8SDLWHnNxeOStDeIrLkbYN"}},
	})
}

// TestRedOrdinaryOutputsSurvive: ordinary outputs beside keys of real
// shapes the session withheld.
func TestRedOrdinaryOutputsSurvive(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		{name: "PublicKeyBesideAWithheldPrivateKey", keys: []string{redPrivPEM}, later: redPubPEM},
		{name: "CertificateBesideAWithheldPrivateKey", keys: []string{redPrivPEM}, later: redCertPEM},
		{name: "PublicKeyDumpBesideAWithheldPrivateKey", keys: []string{redPrivPEM}, later: redPubText},
		{name: "OtherUsersJWT", keys: []string{redHS256User1}, later: "Authorization: Bearer " + redHS256User2},
		{name: "BasicDateAfterAPresignedURL", keys: []string{redPresigned}, later: "backup-20260314.tar.gz 3.2 GB"},
		{name: "AccessKeyIDListedAfterAPresignedURL", keys: []string{redPresigned}, later: "AKIAIOSFODNN7EXAMPLE  Active  2026-01-02"},
		{name: "DatabaseHostAfterAConnectionString", keys: []string{"postgres://app:Pa55w0rdXyz@db-prod-01.internal:5432/orders"}, later: "db-prod-01.internal:5432 healthy; database orders"},
		{name: "Base64ImageAfterKeys", keys: []string{redStripeSecret, redRS256JWT, redSTSToken}, later: "data:image/png;base64," + redPNG},
		{name: "ShasVersionsDatesAfterKeys", keys: []string{redStripeSecret, redRS256JWT, redULID1, redOID1, redUUID1a},
			later: "commit 3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f (v2.14.3, 2026-03-14T15:30:45Z) order 9b2f4c1e-7d3a-4e8b-a6f5-0c1d2e3f4a5b"},
		{name: "ProfileWordsAfterAWholeProfile", whole: `{"status":"active","country":"Portugal","timezone":"Europe/Lisbon","member_since":"2019-04-02","pin":"2026"}`,
			later: "Status active; shipping to Portugal (Europe/Lisbon) since 2019-04-02, renewal 2026-03-14."},
	})
}

const (
	// AWS's documented example secret access key, with its slashes.
	redAWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	// python3: base64.b64encode(os.urandom(30)), a secret access key's
	// shape with a slash in it.
	redAWSRandomSecret = "QINo2Chb34lj/lH3F5XVzVNsWLl0xtC1lLARVY84"
	// SendGrid's documented API key shape: SG., the key's id (listed by
	// GET /v3/api_keys as api_key_id), the secret.
	redSendGridKey = "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"
	redSendGridID  = "ngeVfQFYQlKU0ufo8x5d1A"
)

// TestRedMoreLeaks: pieces through pagination and URLs, and names and
// addresses through the composed readings.
func TestRedMoreLeaks(t *testing.T) {
	runRedLeakCases(t, []redLeakCase{
		// a list tool's second page begins inside the key
		{name: "KeyCutAcrossTwoPages", keys: []string{redStripeSecret}, kind: engine.Returned,
			laters: []string{`{"page":1,"lines":["STRIPE_KEY=sk_live_51HqLyjWDarjtT1zdp7"],"next":"p2"}`, `{"page":2,"lines":["dcXk4Rm9QvB2sLw8TnJ3yE","DEBUG=false"]}`},
			// the first page holds the account's id and two characters
			// of the secret, too few to find
			gone: []string{"dcXk4Rm9QvB2sLw8TnJ3yE"}},
		// python3: urllib.parse.quote(slice, safe="") in a link the tool writes
		{name: "AWSSecretSliceInAQuery", keys: []string{redAWSRandomSecret}, kind: engine.Text,
			laters: []string{"https://logs.example/search?q=hb34lj%2FlH3F5XVzV&from=0"}, gone: []string{"hb34lj/lH3F5XVzV", "hb34lj%2FlH3F5XVzV"}},
		// python3: name.encode("utf-8").decode("cp1252"), Windows' reading
		// of UTF-8 (ß becomes ÃŸ, not Latin-1's Ã\x9f)
		{name: "NameMisreadAsCP1252", keys: []string{"Jürgen Großmann"}, kind: engine.Text,
			laters: []string{"Kunde: JÃ¼rgen GroÃŸmann"}, gone: []string{"JÃ¼rgen GroÃŸmann"}},
		// python3: e.encode("utf-8").decode("latin-1") twice over
		{name: "AddressMisreadTwice", keys: []string{"jürgen.müller@bücher.example"}, kind: engine.Text,
			laters: []string{"to: jÃ\u0083Â¼rgen.mÃ\u0083Â¼ller@bÃ\u0083Â¼cher.example"}, gone: []string{"jÃ\u0083Â¼rgen.mÃ\u0083Â¼ller@bÃ\u0083Â¼cher.example"}},
		// python3: the same through cp1252 twice (errors="replace" not needed)
		{name: "AddressMisreadTwiceAsCP1252", keys: []string{"jürgen.müller@bücher.example"}, kind: engine.Text,
			laters: []string{"to: jÃƒÂ¼rgen.mÃƒÂ¼ller@bÃƒÂ¼cher.example"}, gone: []string{"jÃƒÂ¼rgen.mÃƒÂ¼ller@bÃƒÂ¼cher.example"}},
		// python3: urllib.parse.quote(local + "@" + domain.encode("idna").decode())
		{name: "AddressPercentEncodedWithPunycodeDomain", keys: []string{"jürgen.müller@bücher.example"}, kind: engine.Text,
			laters: []string{"mailto:j%C3%BCrgen.m%C3%BCller%40xn--bcher-kva.example"}, gone: []string{"j%C3%BCrgen.m%C3%BCller%40xn--bcher-kva.example"}},
		// python3: html.escape(key[:20] + "<wbr>" + key[20:]), a mail
		// template's break, escaped once more on its way into JSON
		{name: "KeyWithEscapedWbr", keys: []string{redStripeSecret}, kind: engine.Text,
			laters: []string{"Your key: sk_live_51HqLyjWDarj&lt;wbr&gt;tT1zdp7dcXk4Rm9QvB2sLw8TnJ3yE"}, gone: []string{"tT1zdp7dcXk4Rm9QvB2sLw8TnJ3yE"}},
	})
}

// TestRedMoreOrdinaryOutputs: ids a service lists beside a key it
// issued, and an AWS credentials file's public half.
func TestRedMoreOrdinaryOutputs(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		{name: "AccessKeyIDAfterACredentialsFile", keys: []string{"[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + redAWSSecret + "\n"},
			later: "AKIAIOSFODNN7EXAMPLE  Active  2026-01-02"},
		{name: "AWSRegionAndDatesAfterAWSSecret", keys: []string{redAWSSecret}, later: "us-east-1 2026-03-14 20260314 v1.2.3"},
	})
}

// python3: "".join(secrets.choice(string.ascii_letters) for _ in
// range(32)), a token of random letters alone.
const redLettersToken = "BSTJnQgZpRlCdNXzDOULFqEBsNjTZKEC"

// A .env file's shape, withheld whole at an x-sensitive member: a release
// version, a runtime version, the deployed commit, a build number, a
// token's expiry, a region and a key.
const redDotEnv = "APP_VERSION=2.14.3-rc1\nNODE_VERSION=v20.11.1\nGIT_SHA=3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f\nBUILD=20260314.1\nTOKEN_EXPIRES=2026-12-31T23:59:59Z\nREGION=eu-west-1\nSTRIPE_KEY=" + redStripeSecret + "\n"

// TestRedAfterAWithheldDotEnv: what a withheld .env holds beside its key
// that later ordinary outputs repeat, and a piece of its key in UTF-16.
func TestRedAfterAWithheldDotEnv(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		{name: "RuntimeVersion", keys: []string{redDotEnv}, later: "node v20.11.1"},
		{name: "Region", keys: []string{redDotEnv}, later: "deployed to eu-west-1"},
		{name: "DateAndVersionAfterAWholeDeployRecord", whole: `{"deploy":{"at":"2026-12-31T23:59:59Z","version":"v20.11.1"}}`,
			later: "next deploy after 2026-12-31T23:59:59Z on v20.11.1"},
	})
	slice := redStripeSecret[20:36]
	runRedLeakCases(t, []redLeakCase{
		// python3: slice.encode("utf-16-le").decode("latin-1")
		{name: "SliceInUTF16LEReadAsLatin1", keys: []string{redDotEnv}, kind: engine.Text,
			laters: []string{"t\x00T\x001\x00z\x00d\x00p\x007\x00d\x00c\x00X\x00k\x004\x00R\x00m\x009\x00Q\x00"}, gone: []string{slice}},
	})
}

// openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256
const redECPEM = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgtjDPaHwu0kdlhl6N\nMeODPgQQH7f9e0iccF1J7UbxgzihRANCAARwo50mItZV3DhdMpQIsiMZ+ySpqR62\ni0/+HD0fT9XAmbdHH9vF591dxQosPjTMYxW7701WedK1lbWSnU2CfoOc\n-----END PRIVATE KEY-----\n"

// openssl pkey -in ec.pem -pubout
const redECPub = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEcKOdJiLWVdw4XTKUCLIjGfskqake\ntotP/hw9H0/VwJm3Rx/bxefdXcUKLD40zGMVu+9NVnnStZW1kp1Ngn6DnA==\n-----END PUBLIC KEY-----\n"

// openssl req -new -x509 -key ec.pem -subj /CN=api.example -days 365
const redECCert = "-----BEGIN CERTIFICATE-----\nMIIBgDCCASegAwIBAgIUNppR75KC9sycH1WstqFcNyUJNBcwCgYIKoZIzj0EAwIw\nFjEUMBIGA1UEAwwLYXBpLmV4YW1wbGUwHhcNMjYxMTI4MjExNjA0WhcNMjcxMTI4\nMjExNjA0WjAWMRQwEgYDVQQDDAthcGkuZXhhbXBsZTBZMBMGByqGSM49AgEGCCqG\nSM49AwEHA0IABHCjnSYi1lXcOF0ylAiyIxn7JKmpHraLT/4cPR9P1cCZt0cf28Xn\n3V3FCiw+NMxjFbvvTVZ50rWVtZKdTYJ+g5yjUzBRMB0GA1UdDgQWBBT2vsfJYUEq\nK5GEr7eWHUE0XEThXTAfBgNVHSMEGDAWgBT2vsfJYUEqK5GEr7eWHUE0XEThXTAP\nBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0cAMEQCIHIWOiySpIxONPmuU4YP\nDlYuZXPJZ62zzFwrFa9GOlSAAiAyajS5B+KXYzBeRslknjiCMZlD+gs1d+ITf+Bp\nlUyPNA==\n-----END CERTIFICATE-----\n"

// openssl pkey -in ec.pem -text -noout: the private scalar's lines
const redECPrivText = "priv:\n    b6:30:cf:68:7c:2e:d2:47:65:86:5e:8d:31:e3:83:\n    3e:04:10:1f:b7:fd:7b:48:9c:70:5d:49:ed:46:f1:\n    83:38\n"

// node: crypto.createPrivateKey(pem).export({format: "jwk"})
const redECJWK = `{"kty":"EC","x":"cKOdJiLWVdw4XTKUCLIjGfskqaketotP_hw9H0_VwJk","y":"t0cf28Xn3V3FCiw-NMxjFbvvTVZ50rWVtZKdTYJ-g5w","crv":"P-256","d":"tjDPaHwu0kdlhl6NMeODPgQQH7f9e0iccF1J7Ubxgzg"}`

// python3: base64.b64encode(key.encode()), a Kubernetes Secret's data
const redStripeB64 = "c2tfbGl2ZV81MUhxTHlqV0Rhcmp0VDF6ZHA3ZGNYazRSbTlRdkIyc0x3OFRuSjN5RQ=="

// python3: key.encode().hex(), a bytea column's text
const redStripeHex = "736b5f6c6976655f353148714c796a574461726a7454317a6470376463586b34526d3951764232734c7738546e4a337945"

// TestRedECKeyBesideItsPublicHalf: a withheld P-256 private key; its
// public key, certificate and public JWK pass unchanged, its private
// scalar in openssl's dump and a JWK's d do not.
func TestRedECKeyBesideItsPublicHalf(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		{name: "PublicKeyPEM", keys: []string{redECPEM}, later: redECPub},
		{name: "Certificate", keys: []string{redECPEM}, later: redECCert},
		// node: the JWK above without d
		{name: "PublicJWK", keys: []string{redECPEM}, kind: engine.Returned, later: `{"kty":"EC","x":"cKOdJiLWVdw4XTKUCLIjGfskqaketotP_hw9H0_VwJk","y":"t0cf28Xn3V3FCiw-NMxjFbvvTVZ50rWVtZKdTYJ-g5w","crv":"P-256"}`},
	})
	runRedLeakCases(t, []redLeakCase{
		{name: "PrivateScalarDump", keys: []string{redECPEM}, kind: engine.Text, laters: []string{redECPrivText}, gone: []string{"b6:30:cf:68:7c:2e:d2:47"}},
		{name: "PrivateJWK", keys: []string{redECPEM}, kind: engine.Returned, laters: []string{redECJWK}, gone: []string{"tjDPaHwu0kdlhl6NMeODPgQQH7f9e0iccF1J7Ubxgzg"}},
	})
}

// TestRedEncodedKeyReadByOffset: a withheld key stored encoded (a
// Kubernetes Secret's base64, a bytea column's hex) read back by offset
// and length, at offsets the encoding's groups do not start at. Each read
// past the issuer's prefix holds a piece of the key once decoded at some
// alignment, and none comes back.
func TestRedEncodedKeyReadByOffset(t *testing.T) {
	for _, c := range []struct {
		name, text string
		start, n   int
	}{
		// past the account's id: the secret part's bytes start at 25
		{"Base64AtOffset36", redStripeB64, 36, 16},
		{"Base64AtOffset37", redStripeB64, 37, 16},
		{"Base64AtOffset38", redStripeB64, 38, 16},
		{"HexAtEvenOffsets", redStripeHex, 50, 32},
		{"HexAtOddOffsets", redStripeHex, 51, 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := redSession(t)
			redWithhold(t, e, redStripeSecret)
			for i := c.start; i+c.n <= len(c.text); i += c.n {
				s := c.text[i : i+c.n]
				if v := redRead(t, e, engine.Text, s); redGives(v, s) {
					t.Errorf("read of %d at offset %d gave %q back", c.n, i, s)
				}
			}
		})
	}
}

// TestRedPiecesBrokenForDisplay: a piece of a key broken where a mail
// template or a chat client breaks long words (a zero-width space, a soft
// hyphen as a character and as an entity, <wbr>, a space between groups),
// and a JWT's claims written out, which are not secret.
func TestRedPiecesBrokenForDisplay(t *testing.T) {
	k := redStripeSecret
	runRedLeakCases(t, []redLeakCase{
		{name: "ZeroWidthSpaceInTheKey", keys: []string{k}, kind: engine.Text, laters: []string{k[:20] + "\u200b" + k[20:]}, gone: []string{k[20:]}},
		{name: "ZeroWidthSpaceInAPiece", keys: []string{k}, kind: engine.Text, laters: []string{k[20:28] + "\u200b" + k[28:36]}, gone: []string{k[20:28] + "\u200b" + k[28:36]}},
		{name: "SoftHyphenInAPiece", keys: []string{k}, kind: engine.Text, laters: []string{k[20:28] + "\u00ad" + k[28:36]}, gone: []string{k[20:28] + "\u00ad" + k[28:36]}},
		{name: "SoftHyphenEntityInAPiece", keys: []string{k}, kind: engine.Text, laters: []string{k[20:28] + "&shy;" + k[28:36]}, gone: []string{k[20:28] + "&shy;" + k[28:36]}},
		{name: "WbrInAPiece", keys: []string{k}, kind: engine.Text, laters: []string{k[20:28] + "<wbr>" + k[28:36]}, gone: []string{k[20:28] + "<wbr>" + k[28:36]}},
		{name: "SpaceBetweenGroupsOfAPiece", keys: []string{k}, kind: engine.Text, laters: []string{k[20:28] + " " + k[28:36]}, gone: []string{k[20:28] + " " + k[28:36]}},
	})
	runRedOrdinaryCases(t, []redOrdinaryCase{
		// base64url-decoded claims of the withheld token
		{name: "ClaimsOfAWithheldJWT", keys: []string{redHS256User1}, kind: engine.Returned, later: `{"sub":"u_1","role":"member","iat":1773500000}`},
	})
}

// python3: "".join(secrets.choice(string.ascii_letters + string.digits)
// for _ in range(20)), a generated database password.
const redDBPassword = "9wdKC4zPHAhzGWB686EO"

// TestRedSlicesOfAKeyInsideAWithheldValue: a key inside a withheld
// sentence (in brackets, quotes, markup), inside a sensitiveHint output
// withheld whole, in a Telegram bot token (id:secret), an Azure
// connection string, a URL's query and a user:password pair, read back in
// reads of 16.
func TestRedSlicesOfAKeyInsideAWithheldValue(t *testing.T) {
	k := redStripeSecret
	for _, c := range []struct{ name, withheld, key string }{
		{"Brackets", "Your new key (" + k + ") is active; store it safely.", redStripeSecretPart},
		{"SingleQuotes", "Your new key is '" + k + "', store it safely.", redStripeSecretPart},
		{"Code", "Your new key is <code>" + k + "</code>, store it safely.", redStripeSecretPart},
		{"MarkdownLink", "Your new key is [" + k + "](https://dashboard.example/keys), store it.", redStripeSecretPart},
		{"Guillemets", "Your new key is «" + k + "», store it safely.", redStripeSecretPart},
		{"TelegramBotToken", "7312458390:AAHkR9xZq2mV7pLw4RtY8sNb3HcJdE5fGuQ", "AAHkR9xZq2mV7pLw4RtY8sNb3HcJdE5fGuQ"},
		// python3: base64.b64encode(os.urandom(64)), an AccountKey
		{"AzureConnectionString", "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=tjKQxrpxs3hxuNXtFk5qydyocenPx2SOmCz1Os0F9E52GlmpNSNAm1Y0CsPT2vGQbosiN13OeV24to4cxs7QKA==;EndpointSuffix=core.windows.net", "tjKQxrpxs3hxuNXtFk5qydyocenPx2SOmCz1Os0F9E52GlmpNSNAm1Y0CsPT2vGQbosiN13OeV24to4cxs7QKA=="},
		// python3: secrets.choice over letters, digits, _ and -
		{"QueryAPIKey", "https://api.example/v1/report?api_key=33VV5pNF1LXNEzKk3WJTjWFxF7shkX4ghG1&format=csv", "33VV5pNF1LXNEzKk3WJTjWFxF7shkX4ghG1"},
		{"UserColonPassword", "app:" + redDBPassword, redDBPassword},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := redSession(t)
			redWithhold(t, e, c.withheld)
			redSliceReads(t, e, c.key, 16)
		})
	}
	for _, c := range []struct{ name, whole string }{
		{"WholeJSON", `{"api_key":"` + k + `"}`},
		{"WholeJSONSentence", `{"note":"Your new key (` + k + `) is active; store it safely."}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := redSession(t)
			redWithholdWhole(t, e, c.whole)
			redSliceReads(t, e, redStripeSecretPart, 16)
		})
	}
}

// An Azure Storage SAS token's shape (service version, services,
// resource types, permissions, expiry, start, protocol, signature).
const redSAS = "sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2026-03-14T15:30:45Z&st=2026-03-14T07:30:45Z&spr=https&sig=Zq3vN1xGk0mWc7T8e2VbZ5yRfH4jK9pLs6uDaQ1oXiE%3D"

// TestRedAzureServiceVersionSurvives: the SAS token's service version, a
// date every request of the account sends, survives its withholding.
func TestRedAzureServiceVersionSurvives(t *testing.T) {
	runRedOrdinaryCases(t, []redOrdinaryCase{
		{name: "ServiceVersion", keys: []string{redSAS}, later: "x-ms-version: 2022-11-02"},
	})
}

// TestRedListingAsksInEveryEncoding: Withheld, which the page asks before
// it lists a <select>'s options, finds the key as a Kubernetes Secret's
// base64 (python3: base64.b64encode(key.encode())), a piece's base64url
// (python3: base64.urlsafe_b64encode(key[8:].encode())), the key's hex
// (python3: key.encode().hex()) and a piece in capitals, and not an
// ordinary option.
func TestRedListingAsksInEveryEncoding(t *testing.T) {
	e := redSession(t)
	redWithhold(t, e, redStripeSecret)
	opts := []string{redStripeB64, "NTFIcUx5aldEYXJqdFQxemRwN2RjWGs0Um05UXZCMnNMdzhUbkozeUU=", redStripeHex, "TT1ZDP7DCXK4RM9Q", "4201 2026-03-14 v1.2.3"}
	got, err := e.Withheld(opts)
	if err != nil {
		t.Fatalf("Withheld: %v", err)
	}
	want := []bool{true, true, true, true, false}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("Withheld(%q) = %v, want %v", opts[i], got, want)
		}
	}
}

// TestRedWholeKeyReshaped: the whole key as a list of its characters
// (python3: json.dumps(list(key))), in chunks of 7 and letter-spaced
// (python3: " ".join(key)) does not come back.
func TestRedWholeKeyReshaped(t *testing.T) {
	runRedLeakCases(t, []redLeakCase{
		{name: "ListOfCharacters", keys: []string{redStripeSecret}, kind: engine.Returned, laters: []string{`["s", "k", "_", "l", "i", "v", "e", "_", "5", "1", "H", "q", "L", "y", "j", "W", "D", "a", "r", "j", "t", "T", "1", "z", "d", "p", "7", "d", "c", "X", "k", "4", "R", "m", "9", "Q", "v", "B", "2", "s", "L", "w", "8", "T", "n", "J", "3", "y", "E"]`}, gone: []string{"\"j\", \"t\", \"T\""}},
		{name: "ChunksOfSeven", keys: []string{redStripeSecret}, kind: engine.Returned, laters: []string{`["sk_live", "_51HqLy", "jWDarjt", "T1zdp7d", "cXk4Rm9", "QvB2sLw", "8TnJ3yE"]`}, gone: []string{"1zdp7d"}},
		{name: "LetterSpaced", keys: []string{redStripeSecret}, kind: engine.Text, laters: []string{"s k _ l i v e _ 5 1 H q L y j W D a r j t T 1 z d p 7 d c X k 4 R m 9 Q v B 2 s L w 8 T n J 3 y E"}, gone: []string{"j t T 1"}},
	})
}
