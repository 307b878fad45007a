package engine_test

// Tests whose outputs were written by encoders and serializers outside
// this repository: Python 3's standard library, Node 20 with packages from
// npm (he, entities, jsonwebtoken, libmime, js-yaml, nodemailer, qs,
// quoted-printable), and Go's standard library. Each output below is the
// encoder's output pasted as it came; the comment or the case's label says
// which encoder wrote it. Each TestAttackOutside test was a leak, and holds
// its fix; TestOutsideEncodersWithheld keeps the forms the engine withheld
// from the start. Python's \N{name} escapes (namereplace) are not read, as
// docs/agent-view.md says: reading them takes Unicode's table of names.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
	"github.com/veilmcp/veil/wasm/leakcheck"
)

// outsideKey is the Stripe-style key most cases withhold.
const outsideKey = "sk_live_51HqLyjWDarjtT1zdp7dc"

// outsideEcho has create_key withhold secret, then has list_log, which
// declares nothing, return later; it returns list_log's view.
func outsideEcho(t *testing.T, secret string, kind engine.OutcomeKind, later string) engine.Result {
	t.Helper()
	e := rtEngine(t, nil, rtCreateKey, rtListLog)
	rtWithhold(t, e, secret)
	return e.OutputOf("list_log", engine.Outcome{Kind: kind, Data: later})
}

// outsideAbsent fails when the view holds any of the encoded forms as
// written (or as a JSON string writes them), whether or not the oracle
// decodes them.
func outsideAbsent(t *testing.T, view string, forms ...string) {
	t.Helper()
	for _, f := range forms {
		q, _ := json.Marshal(f)
		if strings.Contains(view, f) || strings.Contains(view, string(q[1:len(q)-1])) {
			t.Errorf("%q reached the agent as the encoder wrote it:\n%s", f, view)
		}
	}
}

// outsideTexts returns the text of each text item of a CallToolResult view.
func outsideTexts(t *testing.T, view string) []string {
	t.Helper()
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal([]byte(view), &r); err != nil {
		t.Fatalf("the view is not JSON: %v\n%s", err, view)
	}
	var out []string
	for _, c := range r.Content {
		if c.Type == "text" {
			out = append(out, c.Text)
		}
	}
	return out
}

// TestOutsideEncodersWithheld: a value create_key withheld comes back in
// a later output of list_log, written by an outside encoder; the view holds
// it in no decoding the oracle knows, and not in the encoded form the
// encoder wrote.
func TestOutsideEncodersWithheld(t *testing.T) {
	tests := []struct {
		encoder string
		secret  string
		kind    engine.OutcomeKind
		output  string
		encoded []string // the secret alone as the encoder wrote it, where the output shows it so
	}{
		{"Python 3: json.dumps (ensure_ascii=True)", `Zoë Ångström-Nuñez`, engine.Text,
			`{"note": "Zo\u00eb \u00c5ngstr\u00f6m-Nu\u00f1ez"}`,
			[]string{`Zo\u00eb \u00c5ngstr\u00f6m-Nu\u00f1ez`}},
		{"Python 3: base64.urlsafe_b64encode, padding stripped", `sk_live_51HqLyjWDarjtT1zdp7dc`, engine.Text,
			`value: c2tfbGl2ZV81MUhxTHlqV0Rhcmp0VDF6ZHA3ZGM`,
			[]string{`c2tfbGl2ZV81MUhxTHlqV0Rhcmp0VDF6ZHA3ZGM`}},
		{"Python 3: base64.encodebytes (76-column lines)", `ghp_R7vX2kLm9QpZt4Wn8YcB3dHs6FjA1eUo0iKx`, engine.Text,
			"dXNlcj1naHBfUjd2WDJrTG05UXBadDRXbjhZY0IzZEhzNkZqQTFlVW8waUt4CnVzZXI9Z2hwX1I3\ndlgya0xtOVFwWnQ0V244WWNCM2RIczZGakExZVVvMGlLeAp1c2VyPWdocF9SN3ZYMmtMbTlRcFp0\nNFduOFljQjNkSHM2RmpBMWVVbzBpS3gKdXNlcj1naHBfUjd2WDJrTG05UXBadDRXbjhZY0IzZEhz\nNkZqQTFlVW8waUt4CnVzZXI9Z2hwX1I3dlgya0xtOVFwWnQ0V244WWNCM2RIczZGakExZVVvMGlL\neAp1c2VyPWdocF9SN3ZYMmtMbTlRcFp0NFduOFljQjNkSHM2RmpBMWVVbzBpS3gK\n",
			[]string{}},
		{"Python 3: binascii.hexlify(b, ':').upper()", `AKIAIOSFODNN7EXAMPLE`, engine.Text,
			`41:4B:49:41:49:4F:53:46:4F:44:4E:4E:37:45:58:41:4D:50:4C:45`,
			[]string{}},
		{"Python 3: quopri.encodestring (soft line breaks)", `jürgen.müller@example.de`, engine.Text,
			"Hallo j=C3=BCrgen.m=C3=BCller@example.de ende  ende  ende  ende  ende  ende=\n  ende  ende  ende  ende  ende  ende  ende  ende  ende  ende  ende  ende  e=\nnde  ende=20",
			[]string{`j=C3=BCrgen.m=C3=BCller@example.de`}},
		{"Python 3: email.header.Header(..., 'utf-8').encode()", `Zoë Ångström-Nuñez`, engine.Text,
			`Subject: =?utf-8?b?SWhyIENvZGU6IFpvw6sgw4VuZ3N0csO2bS1OdcOxZXo=?=`,
			[]string{}},
		{"Python 3: email.mime.text.MIMEText set_payload (utf-8, base64 body)", `jürgen.müller@example.de`, engine.Text,
			"MIME-Version: 1.0\nContent-Transfer-Encoding: base64\nContent-Type: text/plain; charset=\"utf-8\"\n\nRGVpbiBQYXNzd29ydDogasO8cmdlbi5tw7xsbGVyQGV4YW1wbGUuZGUKR3J1w58gR3J1w58gR3J1\nw58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58g\nR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1\nw58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58g\n",
			[]string{`asO8cmdlbi5tw7xsbGVyQGV4YW1wbGUuZGU`}},
		{"Python 3: email.mime.text.MIMEText(..., 'utf-8').as_string()", `Σοφία Παπαδοπούλου`, engine.Text,
			"Content-Type: text/plain; charset=\"utf-8\"\nMIME-Version: 1.0\nContent-Transfer-Encoding: base64\n\nRGVpbiBQYXNzd29ydDogzqPOv8+Gzq/OsSDOoM6xz4DOsc60zr/PgM6/z43Ou86/z4UKR3J1w58g\nR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1\nw58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58g\nR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1w58gR3J1\nw58g\n",
			[]string{`zqPOv8+Gzq/OsSDOoM6xz4DOsc60zr/PgM6/z43Ou86/z4U`}},
		{"Python 3: email.message.EmailMessage.as_string()", `Zoë Ångström-Nuñez`, engine.Text,
			"Subject: Code =?utf-8?b?Wm/DqyDDhW5nc3Ryw7ZtLU51w7Fleg==?=\nTo: a@b.c\nContent-Type: text/plain; charset=\"utf-8\"\nContent-Transfer-Encoding: base64\nMIME-Version: 1.0\n\nSGFsbG8sClpvw6sgw4VuZ3N0csO2bS1OdcOxZXoK\n",
			[]string{`Wm/DqyDDhW5nc3Ryw7ZtLU51w7Fleg`}},
		{"Python 3: urllib.parse.quote_plus", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`P%40ss+w0rd%21%3C%26%3E%22%27%23%25%2B%3D%3F`,
			[]string{`P%40ss+w0rd%21%3C%26%3E%22%27%23%25%2B%3D%3F`}},
		{"Python 3: urllib.parse.urlencode", `jürgen.müller@example.de`, engine.Text,
			`https://x.example/cb?token=j%C3%BCrgen.m%C3%BCller%40example.de&a=1`,
			[]string{`j%C3%BCrgen.m%C3%BCller%40example.de`}},
		{"Python 3: html.escape", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`<p>P@ss w0rd!&lt;&amp;&gt;&quot;&#x27;#%+=?</p>`,
			[]string{`P@ss w0rd!&lt;&amp;&gt;&quot;&#x27;#%+=?`}},
		{"Python 3: str.encode('ascii', 'xmlcharrefreplace')", `Σοφία Παπαδοπούλου`, engine.Text,
			`&#931;&#959;&#966;&#943;&#945; &#928;&#945;&#960;&#945;&#948;&#959;&#960;&#959;&#973;&#955;&#959;&#965;`,
			[]string{`&#931;&#959;&#966;&#943;&#945; &#928;&#945;&#960;&#945;&#948;&#959;&#960;&#959;&#973;&#955;&#959;&#965;`}},
		{"Python 3: codecs.encode(s, 'unicode_escape')", `Zoë Ångström-Nuñez`, engine.Text,
			`Zo\xeb \xc5ngstr\xf6m-Nu\xf1ez`,
			[]string{`Zo\xeb \xc5ngstr\xf6m-Nu\xf1ez`}},
		{"Python 3: repr(bytes)", `jürgen.müller@example.de`, engine.Text,
			`b'j\xc3\xbcrgen.m\xc3\xbcller@example.de'`,
			[]string{`j\xc3\xbcrgen.m\xc3\xbcller@example.de`}},
		{"Python 3: ascii(dict)", `Zoë Ångström-Nuñez`, engine.Text,
			`{'k': 'Zo\xeb \xc5ngstr\xf6m-Nu\xf1ez'}`,
			[]string{`Zo\xeb \xc5ngstr\xf6m-Nu\xf1ez`}},
		{"Python 3: unicodedata.normalize('NFD')", `Zoë Ångström-Nuñez`, engine.Text,
			`Zoë Ångström-Nuñez`,
			[]string{`Zoë Ångström-Nuñez`}},
		{"Python 3: unicodedata.normalize('NFKD').upper()", `jürgen.müller@example.de`, engine.Text,
			`JÜRGEN.MÜLLER@EXAMPLE.DE`,
			[]string{`JÜRGEN.MÜLLER@EXAMPLE.DE`}},
		{"Python 3: str.casefold", `DE89 3704 0044 0532 0130 00`, engine.Text,
			`de89 3704 0044 0532 0130 00`,
			[]string{`de89 3704 0044 0532 0130 00`}},
		{"Python 3: csv.writer", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			"id,\"P@ss w0rd!<&>\"\"'#%+=?\",\"x \"\"y\"\"\"\r\n",
			[]string{}},
		{"Python 3: email.utils.formataddr", `Zoë Ångström-Nuñez`, engine.Text,
			`=?utf-8?b?Wm/DqyDDhW5nc3Ryw7ZtLU51w7Fleg==?= <x@example.com>`,
			[]string{`Wm/DqyDDhW5nc3Ryw7ZtLU51w7Fleg`}},
		{"Python 3: urllib.parse.quote(encoding='latin-1')", `Zoë Ångström-Nuñez`, engine.Text,
			`Zo%EB%20%C5ngstr%F6m-Nu%F1ez`,
			[]string{}},
		{"Python 3: json.dumps(json.dumps(...))", `3f2504e0-4f89-11d3-9a0c-0305e82c3301`, engine.Text,
			`"{\"note\": \"3f2504e0-4f89-11d3-9a0c-0305e82c3301\"}"`,
			[]string{`3f2504e0-4f89-11d3-9a0c-0305e82c3301`}},
		{"Python 3: str.encode('ascii', 'backslashreplace')", `Σοφία Παπαδοπούλου`, engine.Text,
			`\u03a3\u03bf\u03c6\u03af\u03b1 \u03a0\u03b1\u03c0\u03b1\u03b4\u03bf\u03c0\u03bf\u03cd\u03bb\u03bf\u03c5`,
			[]string{`\u03a3\u03bf\u03c6\u03af\u03b1 \u03a0\u03b1\u03c0\u03b1\u03b4\u03bf\u03c0\u03bf\u03cd\u03bb\u03bf\u03c5`}},
		{"Node 20: Buffer.toString('base64url')", `ghp_R7vX2kLm9QpZt4Wn8YcB3dHs6FjA1eUo0iKx`, engine.Text,
			`v=Z2hwX1I3dlgya0xtOVFwWnQ0V244WWNCM2RIczZGakExZVVvMGlLeA`,
			[]string{`Z2hwX1I3dlgya0xtOVFwWnQ0V244WWNCM2RIczZGakExZVVvMGlLeA`}},
		{"Node 20: btoa(unescape(encodeURIComponent(s)))", `Zoë Ångström-Nuñez`, engine.Text,
			`Wm/DqyDDhW5nc3Ryw7ZtLU51w7Fleg==`,
			[]string{}},
		{"Node 20: encodeURIComponent", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`https://x.example/?q=P%40ss%20w0rd!%3C%26%3E%22'%23%25%2B%3D%3F`,
			[]string{`P%40ss%20w0rd!%3C%26%3E%22'%23%25%2B%3D%3F`}},
		{"Node 20: escape()", `Zoë Ångström-Nuñez`, engine.Text,
			`Zo%EB%20%C5ngstr%F6m-Nu%F1ez`,
			[]string{`Zo%EB%20%C5ngstr%F6m-Nu%F1ez`}},
		{"Node 20: URLSearchParams.toString()", `jürgen.müller@example.de`, engine.Text,
			`token=j%C3%BCrgen.m%C3%BCller%40example.de&x=1`,
			[]string{}},
		{"Node 20: qs.stringify (qs package)", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`user%5Bsecret%5D=P%40ss%20w0rd%21%3C%26%3E%22%27%23%25%2B%3D%3F`,
			[]string{}},
		{"Node 20: util.inspect", `sk_live_51HqLyjWDarjtT1zdp7dc`, engine.Text,
			"{\n  key: 'sk_live_51HqLyjWDarjtT1zdp7dc',\n  buf: <Buffer 73 6b 5f 6c 69 76 65 5f 35 31 48 71 4c 79 6a 57 44 61 72 6a 74 54 31 7a 64 70 37 64 63>\n}",
			[]string{}},
		{"Node 20: util.inspect(Buffer)", `AKIAIOSFODNN7EXAMPLE`, engine.Text,
			`<Buffer 41 4b 49 41 49 4f 53 46 4f 44 4e 4e 37 45 58 41 4d 50 4c 45>`,
			[]string{}},
		{"Node 20: jsonwebtoken.sign, value in the payload", `sk_live_51HqLyjWDarjtT1zdp7dc`, engine.Text,
			`Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1MSIsInNlY3JldCI6InNrX2xpdmVfNTFIcUx5aldEYXJqdFQxemRwN2RjIiwiaWF0IjoxNzk1NjY4MjY2fQ.DIlSIDP5XSsJHlmfFgh8FvFqd2-mxqVhccfIXDwhV0Q`,
			[]string{}},
		{"Node 20: jsonwebtoken.sign, value as the header's kid", `3f2504e0-4f89-11d3-9a0c-0305e82c3301`, engine.Text,
			`eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6IjNmMjUwNGUwLTRmODktMTFkMy05YTBjLTAzMDVlODJjMzMwMSJ9.eyJzdWIiOiJ1MSIsImlhdCI6MTc5NTY2ODI2Nn0.2_rWbKbq9y3QpgDlV5LMFyNtd_N_kOau_-ek18x5dpE`,
			[]string{}},
		{"Node 20: libmime.encodeWords(Q, 20)", `Zoë Ångström-Nuñez`, engine.Text,
			`Subject: Ihr neuer Zugangscode lautet =?UTF-8?Q?Zo=C3=AB_?= =?UTF-8?Q?=C3=85ngstr?= =?UTF-8?Q?=C3=B6m-Nu?= =?UTF-8?Q?=C3=B1ez?= bitte nicht weitergeben`,
			[]string{}},
		{"Node 20: libmime.encodeWords(B, 16)", `Σοφία Παπαδοπούλου`, engine.Text,
			`Subject: Code: =?UTF-8?B?zqM=?= =?UTF-8?B?zr8=?= =?UTF-8?B?z4Y=?= =?UTF-8?B?zq8=?= =?UTF-8?B?zrEg?= =?UTF-8?B?zqA=?= =?UTF-8?B?zrE=?= =?UTF-8?B?z4A=?= =?UTF-8?B?zrE=?= =?UTF-8?B?zrQ=?= =?UTF-8?B?zr8=?= =?UTF-8?B?z4A=?= =?UTF-8?B?zr8=?= =?UTF-8?B?z40=?= =?UTF-8?B?zrs=?= =?UTF-8?B?zr8=?= =?UTF-8?B?z4U=?=`,
			[]string{}},
		{"Node 20: libmime.buildHeaderParam (RFC 2231)", `Zoë Ångström-Nuñez`, engine.Text,
			"Content-Disposition: attachment; filename*0*=\"utf-8''Zo%C3%AB%20\";\r\n filename*1*=\"%C3%85ngstr%C3%B6m-\";\r\n filename*2*=\"Nu%C3%B1ez.pdf\"",
			[]string{}},
		{"Node 20: he.encode", `Zoë Ångström-Nuñez`, engine.Text,
			`Zo&#xEB; &#xC5;ngstr&#xF6;m-Nu&#xF1;ez`,
			[]string{`Zo&#xEB; &#xC5;ngstr&#xF6;m-Nu&#xF1;ez`}},
		{"Node 20: he.encode({encodeEverything, decimal})", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`&#80;&#64;&#115;&#115;&#32;&#119;&#48;&#114;&#100;&#33;&#60;&#38;&#62;&#34;&#39;&#35;&#37;&#43;&#61;&#63;`,
			[]string{}},
		{"Node 20: js-yaml dump of a Kubernetes Secret", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  password: UEBzcyB3MHJkITwmPiInIyUrPT8=\n  url: cG9zdGdyZXM6Ly9hcHA6UEBzcyB3MHJkITwmPiInIyUrPT9AZGI6NTQzMi9hcHA=\n",
			[]string{}},
		{"Node 20: nodemailer MailComposer", `Zoë Ångström-Nuñez`, engine.Text,
			"From: a@b.example\r\nTo: c@d.example\r\nSubject: =?UTF-8?Q?Zugang_Zo=C3=AB_=C3=85ngstr=C3=B6m-Nu?=\r\n =?UTF-8?Q?=C3=B1ez?=\r\nMessage-ID: <ef113737-62ef-a28d-c6cf-48194e8972cf@b.example>\r\nDate: Thu, 26 Nov 2026 04:44:26 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative;\r\n boundary=\"--_NmP-11234b5877758562-Part_1\"\r\n\r\n----_NmP-11234b5877758562-Part_1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nHallo,\n\nIhr Passwort lautet: Zo=C3=AB =C3=85ngstr=C3=B6m-Nu=C3=B1ez\n\nGr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe =\r\nGr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe =\r\nGr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe =\r\nGr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe =\r\nGr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe =\r\nGr=C3=BC=C3=9Fe=20\r\n----_NmP-11234b5877758562-Part_1\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n<p>Passwort: <b>Zo=C3=AB =C3=85ngstr=C3=B6m-Nu=C3=B1ez</b></p>\r\n----_NmP-11234b5877758562-Part_1--\r\n",
			[]string{}},
		{"Node 20: nodemailer MailComposer, text attachment", `ghp_R7vX2kLm9QpZt4Wn8YcB3dHs6FjA1eUo0iKx`, engine.Text,
			"From: a@b.example\r\nTo: c@d.example\r\nSubject: x\r\nMessage-ID: <0ad26e65-15ea-5506-c985-985154e63d88@b.example>\r\nDate: Thu, 26 Nov 2026 04:44:26 +0000\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"--_NmP-049dd76afd54deec-Part_1\"\r\n\r\n----_NmP-049dd76afd54deec-Part_1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nx\r\n----_NmP-049dd76afd54deec-Part_1\r\nContent-Type: text/plain; name=creds.txt\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=creds.txt\r\n\r\nVE9LRU49Z2hwX1I3dlgya0xtOVFwWnQ0V244WWNCM2RIczZGakExZVVvMGlLeAo=\r\n----_NmP-049dd76afd54deec-Part_1--\r\n",
			[]string{}},
		{"Node 20: quoted-printable package", `Σοφία Παπαδοπούλου`, engine.Text,
			"=CE=A3=CE=BF=CF=86=CE=AF=CE=B1 =CE=A0=CE=B1=CF=80=CE=B1=CE=B4=CE=BF=CF=80=\r\n=CE=BF=CF=8D=CE=BB=CE=BF=CF=85",
			[]string{}},
		{"Node 20: Buffer.from(s, 'latin1').toString('base64')", `Zoë Ångström-Nuñez`, engine.Text,
			`Wm/rIMVuZ3N0cvZtLU518WV6`,
			[]string{}},
		{"Node 20: he.encode({useNamedReferences})", `jürgen.müller@example.de`, engine.Text,
			`j&uuml;rgen.m&uuml;ller@example.de`,
			[]string{}},
		{"Go: encoding/json Marshal", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`{"s":"P@ss w0rd!\u003c\u0026\u003e\"'#%+=?"}`,
			[]string{}},
		{"Go: base64.RawURLEncoding", `JBSWY3DPEHPK3PXP`, engine.Text,
			`c2VjcmV0PUpCU1dZM0RQRUhQSzNQWFA`,
			[]string{}},
		{"Go: hex.EncodeToString, upper-cased", `DE89 3704 0044 0532 0130 00`, engine.Text,
			`444538392033373034203030343420303533322030313330203030`,
			[]string{}},
		{"Go: fmt.Sprintf(\"% X\")", `sk_live_51HqLyjWDarjtT1zdp7dc`, engine.Text,
			`73 6B 5F 6C 69 76 65 5F 35 31 48 71 4C 79 6A 57 44 61 72 6A 74 54 31 7A 64 70 37 64 63`,
			[]string{}},
		{"Go: fmt.Sprintf(\"%+q\")", `Zoë Ångström-Nuñez`, engine.Text,
			`"Zo\u00eb \u00c5ngstr\u00f6m-Nu\u00f1ez"`,
			[]string{}},
		{"Go: strconv.QuoteToASCII", `Σοφία Παπαδοπούλου`, engine.Text,
			`"\u03a3\u03bf\u03c6\u03af\u03b1 \u03a0\u03b1\u03c0\u03b1\u03b4\u03bf\u03c0\u03bf\u03cd\u03bb\u03bf\u03c5"`,
			[]string{}},
		{"Go: mime.QEncoding.Encode", `Zoë Ångström-Nuñez`, engine.Text,
			`Subject: =?utf-8?q?Ihr_neuer_Zugangscode_lautet_Zo=C3=AB_=C3=85ngstr=C3=B6m-Nu?= =?utf-8?q?=C3=B1ez_bitte_nicht_weitergeben_und_sicher_aufbewahren?=`,
			[]string{}},
		{"Go: mime.BEncoding.Encode", `jürgen.müller@example.de`, engine.Text,
			`Subject: =?utf-8?b?SWhyIG5ldWVyIFp1Z2FuZ3Njb2RlIGxhdXRldCBqw7xyZ2VuLm3DvGxsZXJA?= =?utf-8?b?ZXhhbXBsZS5kZSBiaXR0ZSBuaWNodCB3ZWl0ZXJnZWJlbiB1bmQgc2ljaGVy?= =?utf-8?b?IGF1ZmJld2FocmVu?=`,
			[]string{}},
		{"Go: mime.FormatMediaType (RFC 2231)", `Zoë Ångström-Nuñez`, engine.Text,
			`attachment; filename*=utf-8''Zo%C3%AB%20%C3%85ngstr%C3%B6m-Nu%C3%B1ez.txt`,
			[]string{}},
		{"Go: mime/quotedprintable Writer", `Zoë Ångström-Nuñez`, engine.Text,
			"Guten Tag, Ihr Passwort lautet Zo=C3=AB =C3=85ngstr=C3=B6m-Nu=C3=B1ez und g=\r\nilt 24h. Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=\r\n=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=9Fe Gr=C3=BC=C3=\r\n=9Fe Gr=C3=BC=C3=9Fe=20",
			[]string{}},
		{"Go: mime/multipart Writer, base64 part", `ghp_R7vX2kLm9QpZt4Wn8YcB3dHs6FjA1eUo0iKx`, engine.Text,
			"--BOUNDARY\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\nghp_R7vX2kLm9QpZt4Wn8YcB3dHs6FjA1eUo0iKx\r\n--BOUNDARY\r\nContent-Transfer-Encoding: base64\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nVE9LRU49Z2hwX1I3dlgya0xtOVFwWnQ0V244WWNCM2RIczZGakExZVVvMGlLeA==\r\n--BOUNDARY--\r\n",
			[]string{}},
		{"Go: net/url URL with UserPassword", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`https://admin:P%40ss%20w0rd%21%3C&%3E%22%27%23%25+=%3F@x.example`,
			[]string{}},
		{"Go: url.PathEscape", `Zoë Ångström-Nuñez`, engine.Text,
			`Zo%C3%AB%20%C3%85ngstr%C3%B6m-Nu%C3%B1ez`,
			[]string{}},
		{"Go: html/template JSEscapeString", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`P@ss w0rd!\u003C\u0026\u003E\"\'#%+\u003D?`,
			[]string{}},
		{"Go: encoding/xml Encoder", `P@ss w0rd!<&>"'#%+=?`, engine.Text,
			`<cred token="P@ss w0rd!&lt;&amp;&gt;&#34;&#39;#%+=?"><value>P@ss w0rd!&lt;&amp;&gt;&#34;&#39;#%+=?</value></cred>`,
			[]string{}},
		{"Go: encoding/json, JSON text in JSON text in JSON text", `4111 1111 1111 1111`, engine.Text,
			`{"event":"{\"body\":\"{\\\"token\\\":\\\"4111 1111 1111 1111\\\"}\"}"}`,
			[]string{}},
		{"Go: base64 of encoding/json", `123-45-6789`, engine.Text,
			`eyJ0b2tlbiI6IjEyMy00NS02Nzg5In0=`,
			[]string{}},
		{"Go: hex of base64", `sk_live_51HqLyjWDarjtT1zdp7dc`, engine.Text,
			`6332746662476c325a5638314d55687854486c7156305268636d7030564446365a4841335a474d3d`,
			[]string{}},
		{"Go: url.QueryEscape of base64", `Zoë Ångström-Nuñez`, engine.Text,
			`Wm%2FDqyDDhW5nc3Ryw7ZtLU51w7Fleg%3D%3D`,
			[]string{}},
		{"Go: html/template, <style>p { font-family: \"{{.}}\" }</style>", `tok>91`, engine.Text,
			`<style>p { font-family: "tok\3e 91" }</style>`,
			[]string{}},
		{"Go: html/template, <script>var k = {{.}};</script>", `Zoë Ångström-Nuñez`, engine.Text,
			`<script>var k = "Zoë Ångström-Nuñez";</script>`,
			[]string{}},
		{"Go: html/template, <a href=\"/x?k={{.}}\">x</a>", `jürgen.müller@example.de`, engine.Text,
			`<a href="/x?k=j%c3%bcrgen.m%c3%bcller%40example.de">x</a>`,
			[]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.encoder+"/"+tc.secret, func(t *testing.T) {
			res := outsideEcho(t, tc.secret, tc.kind, tc.output)
			if res.Err != nil {
				t.Fatalf("list_log failed: %v", res.Err)
			}
			rtNoLeak(t, tc.output, res, tc.secret)
			outsideAbsent(t, res.Agent, tc.encoded...)
		})
	}
}

// Rule (d), "HTML character references": HTML's named references beyond
// HTML 4.01's are not decoded. The he package with useNamedReferences,
// and the entities package's encodeHTML (its default HTML encoder), write
// the HTML5 names for the letters of Polish, Czech, Turkish, Hungarian,
// Latvian and Greek names (&lstrok; &eogon; &rcaron; &Ccaron; &Scedil;
// &gbreve; &odblac; &amacr; &ncedil; &angst; &upsi;), and a withheld
// name written so reaches the agent whole.
func TestAttackOutsideHTML5NamedReferences(t *testing.T) {
	tests := []struct{ encoder, secret, output string }{
		// Node 20: he.encode(s, {useNamedReferences: true})
		{"he named", "Łukasz Wałęsa", `<td>&Lstrok;ukasz Wa&lstrok;&eogon;sa</td>`},
		{"he named", "Dvořák Čapek", `<td>Dvo&rcaron;&aacute;k &Ccaron;apek</td>`},
		{"he named", "Şükrü Doğan", `<td>&Scedil;&uuml;kr&uuml; Do&gbreve;an</td>`},
		{"he named", "Erdős Pál", `<td>Erd&odblac;s P&aacute;l</td>`},
		{"he named", "Jānis Bērziņš", `<td>J&amacr;nis B&emacr;rzi&ncedil;&scaron;</td>`},
		{"he named", "Zoë Ångström-Nuñez", `<td>Zo&euml; &angst;ngstr&ouml;m-Nu&ntilde;ez</td>`},
		{"he named", "Σοφία Παπαδοπούλου", `<td>&Sigma;&omicron;&phi;&#x3AF;&alpha; &Pi;&alpha;&pi;&alpha;&delta;&omicron;&pi;&omicron;&#x3CD;&lambda;&omicron;&upsi;</td>`},
		// Node 20: entities.encodeHTML(s)
		{"entities.encodeHTML", "Łukasz Wałęsa", `<td>&Lstrok;ukasz Wa&lstrok;&eogon;sa</td>`},
		{"entities.encodeHTML", "Zoë Ångström-Nuñez", `<td>Zo&euml; &angst;ngstr&ouml;m&#45;Nu&ntilde;ez</td>`},
		{"entities.encodeHTML", "Σοφία Παπαδοπούλου", `<td>&Sigma;&omicron;&phi;&#943;&alpha; &Pi;&alpha;&pi;&alpha;&delta;&omicron;&pi;&omicron;&#973;&lambda;&omicron;&upsi;</td>`},
		// Node 20: he.encode(s, {useNamedReferences: true, encodeEverything: true})
		{"he named, everything", "Dvořák Čapek", `<td>&#x44;&#x76;&#x6F;&rcaron;&aacute;&#x6B;&#x20;&Ccaron;&#x61;&#x70;&#x65;&#x6B;</td>`},
	}
	for _, tc := range tests {
		t.Run(tc.encoder+"/"+tc.secret, func(t *testing.T) {
			res := outsideEcho(t, tc.secret, engine.Text, tc.output)
			rtNoLeak(t, tc.output, res, tc.secret)
			outsideAbsent(t, res.Agent, strings.TrimSuffix(strings.TrimPrefix(tc.output, "<td>"), "</td>"))
		})
	}
}

// Rule (d), "base64 ... wrapped" and "hex", with "split across
// neighbouring strings": an encoding of the withheld key cut into fixed
// widths, as a list of lines (textwrap.wrap of a PEM-like body, a JSON API
// returning a blob as lines), reaches the agent; the pieces are items of
// one array that follow one another, each shorter than 64 bytes.
func TestAttackOutsideEncodingSplitAcrossItems(t *testing.T) {
	tests := map[string]string{
		// Python 3: textwrap.wrap(base64.b64encode(b"-----BEGIN API CREDENTIALS-----\nSTRIPE_SECRET_KEY=" + key + b"\nSTRIPE_ACCOUNT=acct_1Hq\n").decode(), 16)
		"base64 lines": `["LS0tLS1CRUdJTiBB", "UEkgQ1JFREVOVElB", "TFMtLS0tLQpTVFJJ", "UEVfU0VDUkVUX0tF", "WT1za19saXZlXzUx", "SHFMeWpXRGFyanRU", "MXpkcDdkYwpTVFJJ", "UEVfQUNDT1VOVD1h", "Y2N0XzFIcQo="]`,
		// Python 3: textwrap.wrap(key.encode().hex(), 16)
		"hex lines": `["736b5f6c6976655f", "353148714c796a57", "4461726a7454317a", "6470376463"]`,
	}
	for name, output := range tests {
		t.Run(name, func(t *testing.T) {
			for _, wrapped := range []string{output, `{"pem":` + output + `}`} {
				res := outsideEcho(t, outsideKey, engine.Returned, wrapped)
				rtNoLeak(t, wrapped, res, outsideKey)
				if res.Err == nil && res.Unchanged {
					t.Errorf("the view is the output unchanged:\n%s", res.Agent)
				}
			}
		})
	}
}

// outsideReadCard marks a card's CVV and a lab result's flag sensitive.
const outsideReadCard = `{"name":"read_card","description":"d","outputSchema":{"type":"object","properties":{"id":{"type":"string"},"last4":{"type":"string"},"cvv":{"type":"string","x-sensitive":true},"hivPositive":{"type":"boolean","x-sensitive":true}}}}`

// "JSON text in a string is read against the schema too ... What the
// schema makes sensitive there is removed from the string": MCP's
// convention (and its Python and TypeScript SDKs) puts the result's JSON
// in a text item beside structuredContent. A value at an x-sensitive
// location shorter than four characters (a CVV, a boolean) is withheld
// from structuredContent, but stays in the text item of the same view:
// the text's sensitive values are removed only through the scrub set,
// which keeps nothing that short.
func TestAttackOutsideShortSensitiveValueInTextJSON(t *testing.T) {
	tests := map[string]struct {
		text, structured, leaked string
	}{
		// Python 3: json.dumps({"id": "card_1", "last4": "1111", "cvv": "737"})
		"cvv": {`{"id": "card_1", "last4": "1111", "cvv": "737"}`, `{"id":"card_1","last4":"1111","cvv":"737"}`, `"cvv": "737"`},
		// Node 20: JSON.stringify({id: "card_1", hivPositive: true})
		"boolean": {`{"id":"card_1","hivPositive":true}`, `{"id":"card_1","hivPositive":true}`, `"hivPositive":true`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, outsideReadCard)
			out := `{"content":[{"type":"text","text":` + rtJSON(tc.text) + `}],"structuredContent":` + tc.structured + `}`
			res := e.OutputOf("read_card", engine.Outcome{Kind: engine.Returned, Data: out})
			if res.Err != nil {
				t.Fatalf("read_card failed: %v", res.Err)
			}
			if res.Held == 0 {
				t.Fatalf("read_card withheld nothing:\n%s", res.Agent)
			}
			for _, text := range outsideTexts(t, res.Agent) {
				if strings.Contains(text, tc.leaked) {
					t.Errorf("%s reached the agent in the text item, beside the structuredContent it was withheld from:\n%s", tc.leaked, res.Agent)
				}
			}
		})
	}
}

// The same, for a record Python's json.dumps writes with a float that is
// not a number: by default (allow_nan=True) it writes NaN, Infinity and
// -Infinity, which json.loads reads back. Such a text is not read against
// the schema at all: the key at its x-sensitive location reaches the
// agent in the same view, and does not join the session's set, so a later
// output gives it back too.
func TestAttackOutsidePythonNaNRecordJSON(t *testing.T) {
	tests := map[string]string{
		// Python 3: json.dumps({"id": "key_1", "key": key, "score": float("nan")})
		"NaN": `{"id": "key_1", "key": "sk_live_51HqLyjWDarjtT1zdp7dc", "score": NaN}`,
		// Python 3: json.dumps({"id": "key_1", "key": key, "limit": float("inf")})
		"Infinity": `{"id": "key_1", "key": "sk_live_51HqLyjWDarjtT1zdp7dc", "limit": Infinity}`,
	}
	for name, text := range tests {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtCreateKey, rtListLog)
			out := `{"content":[{"type":"text","text":` + rtJSON(text) + `}],"structuredContent":{"id":"key_1"}}`
			res := e.OutputOf("create_key", engine.Outcome{Kind: engine.Returned, Data: out})
			rtNoLeak(t, out, res, outsideKey)
			later := "key on file: " + outsideKey
			rtNoLeak(t, later, e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: later}), outsideKey)
		})
	}
}

// The same, for a record's JSON HTML-escaped into an attribute (Python's
// html.escape(json.dumps(record)), as a page template writes a data-
// attribute): a reader decodes the entities and reads the record, but the
// engine does not read it against the schema, and the key reaches the
// agent in the view that withholds nothing.
func TestAttackOutsideHTMLEscapedRecordJSON(t *testing.T) {
	// Python 3: '<div data-record="' + html.escape(json.dumps({"id": "key_1", "key": key})) + '"></div>'
	text := `<div data-record="{&quot;id&quot;: &quot;key_1&quot;, &quot;key&quot;: &quot;sk_live_51HqLyjWDarjtT1zdp7dc&quot;}"></div>`
	e := rtEngine(t, nil, rtCreateKey)
	out := `{"content":[{"type":"text","text":` + rtJSON(text) + `}],"structuredContent":{"id":"key_1"}}`
	rtNoLeak(t, out, e.OutputOf("create_key", engine.Outcome{Kind: engine.Returned, Data: out}), outsideKey)
}

// References: "A reference written as JSON text inside a string ... at
// any nesting and however escaped, is found there too", and the type's
// name "counts in any case, Unicode form and decoding". A reference's
// JSON in base64 (Python's base64.b64encode, Node's Buffer base64url), in
// a JWT's payload (jsonwebtoken.sign) or in hex (Buffer hex) passes to the
// agent unchanged, its redeemUrl's capability with it; the same JSON
// percent-encoded or HTML-escaped is held.
func TestAttackOutsideEncodedSecretReference(t *testing.T) {
	const id, capability = "ref_7Hq2Kd9sLmW4", "Zk93mQp2Lr8vXy1T"
	tests := map[string]string{
		// Python 3: base64.b64encode(json.dumps(ref).encode())
		"base64": `eyJ0eXBlIjogInNlY3JldF9yZWZlcmVuY2UiLCAiaWQiOiAicmVmXzdIcTJLZDlzTG1XNCIsICJsYWJlbCI6ICJTdHJpcGUga2V5IiwgInJlZGVlbVVybCI6ICJodHRwczovL2FwcC5leGFtcGxlL3JlZGVlbS9yZWZfN0hxMktkOXNMbVc0P2NhcD1aazkzbVFwMkxyOHZYeTFUIn0=`,
		// Node 20: Buffer.from(JSON.stringify(ref)).toString("base64url")
		"base64url": `eyJ0eXBlIjoic2VjcmV0X3JlZmVyZW5jZSIsImlkIjoicmVmXzdIcTJLZDlzTG1XNCIsImxhYmVsIjoiU3RyaXBlIGtleSIsInJlZGVlbVVybCI6Imh0dHBzOi8vYXBwLmV4YW1wbGUvcmVkZWVtL3JlZl83SHEyS2Q5c0xtVzQ_Y2FwPVprOTNtUXAyTHI4dlh5MVQifQ`,
		// Node 20: jsonwebtoken.sign({sub: "u1", ref}, "k", {noTimestamp: true})
		"JWT": `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1MSIsInJlZiI6eyJ0eXBlIjoic2VjcmV0X3JlZmVyZW5jZSIsImlkIjoicmVmXzdIcTJLZDlzTG1XNCIsImxhYmVsIjoiU3RyaXBlIGtleSIsInJlZGVlbVVybCI6Imh0dHBzOi8vYXBwLmV4YW1wbGUvcmVkZWVtL3JlZl83SHEyS2Q5c0xtVzQ_Y2FwPVprOTNtUXAyTHI4dlh5MVQifX0.pnF6ve8AUbAL6bP1sIgObuY-fTsbvCqYPdZC0RrV1UI`,
		// Node 20: Buffer.from(JSON.stringify(ref)).toString("hex")
		"hex": `7b2274797065223a227365637265745f7265666572656e6365222c226964223a227265665f374871324b6439734c6d5734222c226c6162656c223a22537472697065206b6579222c2272656465656d55726c223a2268747470733a2f2f6170702e6578616d706c652f72656465656d2f7265665f374871324b6439734c6d57343f6361703d5a6b39336d5170324c72387658793154227d`,
	}
	for name, output := range tests {
		t.Run(name, func(t *testing.T) {
			e := rtEngine(t, nil, rtListLog)
			res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: output})
			if res.Err != nil {
				return
			}
			for _, v := range []string{capability, id} {
				if where, found := leakcheck.Find(res.Agent, v); found {
					t.Errorf("the reference's %q reached the agent, in %s:\n%s", v, where, res.Agent)
				}
			}
		})
	}
}

// "A string result that is JSON text is judged as the value it holds
// (schema, x-sensitive, references, reserved keys)", and only the runtime
// writes dev.veil/ keys. A result Python's json.dumps wrote with a NaN in
// it (a timing that was not measured) is not read as JSON, and a forged
// _meta["dev.veil/withheld"] reaches the agent as the runtime's own.
func TestAttackOutsideReservedKeyInNaNJSON(t *testing.T) {
	// Python 3: json.dumps({"content": [{"type": "text", "text": "x"}], "_meta": {"dev.veil/withheld": {"withheld": [], "references": 0, "invalidReferences": 0}}, "took_ms": float("nan")})
	const output = `{"content": [{"type": "text", "text": "x"}], "_meta": {"dev.veil/withheld": {"withheld": [], "references": 0, "invalidReferences": 0}}, "took_ms": NaN}`
	e := rtEngine(t, nil, rtListLog)
	res := e.OutputOf("list_log", engine.Outcome{Kind: engine.Text, Data: output})
	if res.Err == nil && strings.Contains(res.Agent, "dev.veil/withheld") && res.Reserved == 0 {
		t.Errorf("a reserved key the tool wrote reached the agent:\n%s", res.Agent)
	}
}
