package engine_test

// A PEM private key withheld earlier, and the same key in a later output
// converted by tools outside this repository (OpenSSL 3's pkey, rsa and
// genpkey, Node 20's crypto.createPrivateKey().export()), each output
// pasted as it came. The key's secret numbers must not come back in any
// of them; its public parts, and hex that is not the key's, stay.

import (
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

// The keys, written by openssl genpkey (RSA of 1024 bits, Ed25519, EC
// P-256).
const (
	keyRSA     = "-----BEGIN PRIVATE KEY-----\nMIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBANgi/E+SrpaNAyku\n63KrLPWPEhETMiIHt8cgXzCRPVQ0IpJz0rAM/064wW/Xo/g+/kHuuG5oOoWP7pO2\nDlhlBEj71B4rFe4QYUXPxI3mWYVCzTykz2tDBqIh57z6yg5r/HtapybT9yqMqzAn\nC+K7z+xk29OnUfNdT5uOXr5fbboVAgMBAAECgYAsxqqwrXmf1NzHxmGeotmwkZAz\nm19yb1jiVtGBlUU4UYisAHSwZjDqFRp12h2tCxfPfu4UaWFeVCAf18KHC35kYqq1\nbZQdLSnNJv5vzDiInYceBWL4L4iK/n3DzeamNSIrf5lkKxfAz7Ei9yGI3us+lrSf\nbTyqearWIRQHze6TLQJBAPn9RwKz60d2kJ+fTdV1TF37179BjZL2rX8iMvgumCTP\ni0NF77H17taA7pZFktji3Fxxzwpi4Bmlm9rLBsTMyNMCQQDdVVb0UBWAxsNtgj/F\nUA844WRb92OSEYeOfN1gVDll4kcAE5eM4PkzO+lHh+G5esoK4VUlq+/A1twVz4wz\nFiB3AkAA/t46h4bnWPSIfjTsJbRxJ2CblWI/9JWKTROQ43adpunyEaQ7vDQATLEm\njg5gqL6h654cd3pW/87YFzjmrb4bAkEAssGz4smzNDhTqeQiIPfR83yGE4iwEE68\nDqZmHOCpItInybYJFiy0114xwCXMdoLnHvZyUGSW1EYzpiHj93aNbQJBAOprpRCl\nwD7EKlKMLRxVlQP34rntF+LwrSWZYYQIAK5CHfgD2y1sJWofuGfQxqrtR9vu4m1P\n8H96RRsrML/ONvQ=\n-----END PRIVATE KEY-----\n"
	keyEd25519 = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIEsGLK1JrEAdE01wiFF/0YJj8QYqoKMu3gkAhdX7HC4Y\n-----END PRIVATE KEY-----\n"
	keyP256    = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgfvBx7zb3N3QAbr4X\nAbhWsdt7snlt4RxYJUhE7Q0fYnahRANCAATbJW21kcpjwT411TE/LMHnV+jbZFzW\n2lm1ElVlpOc9QGfb4JIoNPcWSR4bZHga3bOG6a7D264i9w+TUvv/fwB+\n-----END PRIVATE KEY-----\n"
)

// TestAttackOutsidePrivateKeyForms: a key create_key withheld comes back
// converted, in the text, PEM, DER or JWK an ordinary tool writes; none of
// its secret numbers reaches the agent, in the notation the tool wrote
// them in.
func TestAttackOutsidePrivateKeyForms(t *testing.T) {
	tests := []struct {
		encoder, key, output string
		forms                []string // pieces of the secret numbers as the tool wrote them
	}{
		{"openssl pkey -text -noout (RSA)", keyRSA, "Private-Key: (1024 bit, 2 primes)\nmodulus:\n    00:d8:22:fc:4f:92:ae:96:8d:03:29:2e:eb:72:ab:\n    2c:f5:8f:12:11:13:32:22:07:b7:c7:20:5f:30:91:\n    3d:54:34:22:92:73:d2:b0:0c:ff:4e:b8:c1:6f:d7:\n    a3:f8:3e:fe:41:ee:b8:6e:68:3a:85:8f:ee:93:b6:\n    0e:58:65:04:48:fb:d4:1e:2b:15:ee:10:61:45:cf:\n    c4:8d:e6:59:85:42:cd:3c:a4:cf:6b:43:06:a2:21:\n    e7:bc:fa:ca:0e:6b:fc:7b:5a:a7:26:d3:f7:2a:8c:\n    ab:30:27:0b:e2:bb:cf:ec:64:db:d3:a7:51:f3:5d:\n    4f:9b:8e:5e:be:5f:6d:ba:15\npublicExponent: 65537 (0x10001)\nprivateExponent:\n    2c:c6:aa:b0:ad:79:9f:d4:dc:c7:c6:61:9e:a2:d9:\n    b0:91:90:33:9b:5f:72:6f:58:e2:56:d1:81:95:45:\n    38:51:88:ac:00:74:b0:66:30:ea:15:1a:75:da:1d:\n    ad:0b:17:cf:7e:ee:14:69:61:5e:54:20:1f:d7:c2:\n    87:0b:7e:64:62:aa:b5:6d:94:1d:2d:29:cd:26:fe:\n    6f:cc:38:88:9d:87:1e:05:62:f8:2f:88:8a:fe:7d:\n    c3:cd:e6:a6:35:22:2b:7f:99:64:2b:17:c0:cf:b1:\n    22:f7:21:88:de:eb:3e:96:b4:9f:6d:3c:aa:79:aa:\n    d6:21:14:07:cd:ee:93:2d\nprime1:\n    00:f9:fd:47:02:b3:eb:47:76:90:9f:9f:4d:d5:75:\n    4c:5d:fb:d7:bf:41:8d:92:f6:ad:7f:22:32:f8:2e:\n    98:24:cf:8b:43:45:ef:b1:f5:ee:d6:80:ee:96:45:\n    92:d8:e2:dc:5c:71:cf:0a:62:e0:19:a5:9b:da:cb:\n    06:c4:cc:c8:d3\nprime2:\n    00:dd:55:56:f4:50:15:80:c6:c3:6d:82:3f:c5:50:\n    0f:38:e1:64:5b:f7:63:92:11:87:8e:7c:dd:60:54:\n    39:65:e2:47:00:13:97:8c:e0:f9:33:3b:e9:47:87:\n    e1:b9:7a:ca:0a:e1:55:25:ab:ef:c0:d6:dc:15:cf:\n    8c:33:16:20:77\nexponent1:\n    00:fe:de:3a:87:86:e7:58:f4:88:7e:34:ec:25:b4:\n    71:27:60:9b:95:62:3f:f4:95:8a:4d:13:90:e3:76:\n    9d:a6:e9:f2:11:a4:3b:bc:34:00:4c:b1:26:8e:0e:\n    60:a8:be:a1:eb:9e:1c:77:7a:56:ff:ce:d8:17:38:\n    e6:ad:be:1b\nexponent2:\n    00:b2:c1:b3:e2:c9:b3:34:38:53:a9:e4:22:20:f7:\n    d1:f3:7c:86:13:88:b0:10:4e:bc:0e:a6:66:1c:e0:\n    a9:22:d2:27:c9:b6:09:16:2c:b4:d7:5e:31:c0:25:\n    cc:76:82:e7:1e:f6:72:50:64:96:d4:46:33:a6:21:\n    e3:f7:76:8d:6d\ncoefficient:\n    00:ea:6b:a5:10:a5:c0:3e:c4:2a:52:8c:2d:1c:55:\n    95:03:f7:e2:b9:ed:17:e2:f0:ad:25:99:61:84:08:\n    00:ae:42:1d:f8:03:db:2d:6c:25:6a:1f:b8:67:d0:\n    c6:aa:ed:47:db:ee:e2:6d:4f:f0:7f:7a:45:1b:2b:\n    30:bf:ce:36:f4\n",
			[]string{"2c:c6:aa:b0:ad:79:9f:d4:dc:c7:c6:61:9e:a2:d9:", "00:f9:fd:47:02:b3:eb:47:76:90:9f:9f:4d:d5:75:"}},
		{"openssl rsa -traditional (PKCS#1 PEM)", keyRSA, "-----BEGIN RSA PRIVATE KEY-----\nMIICXQIBAAKBgQDYIvxPkq6WjQMpLutyqyz1jxIREzIiB7fHIF8wkT1UNCKSc9Kw\nDP9OuMFv16P4Pv5B7rhuaDqFj+6Ttg5YZQRI+9QeKxXuEGFFz8SN5lmFQs08pM9r\nQwaiIee8+soOa/x7Wqcm0/cqjKswJwviu8/sZNvTp1HzXU+bjl6+X226FQIDAQAB\nAoGALMaqsK15n9Tcx8ZhnqLZsJGQM5tfcm9Y4lbRgZVFOFGIrAB0sGYw6hUaddod\nrQsXz37uFGlhXlQgH9fChwt+ZGKqtW2UHS0pzSb+b8w4iJ2HHgVi+C+Iiv59w83m\npjUiK3+ZZCsXwM+xIvchiN7rPpa0n208qnmq1iEUB83uky0CQQD5/UcCs+tHdpCf\nn03VdUxd+9e/QY2S9q1/IjL4Lpgkz4tDRe+x9e7WgO6WRZLY4txccc8KYuAZpZva\nywbEzMjTAkEA3VVW9FAVgMbDbYI/xVAPOOFkW/djkhGHjnzdYFQ5ZeJHABOXjOD5\nMzvpR4fhuXrKCuFVJavvwNbcFc+MMxYgdwJAAP7eOoeG51j0iH407CW0cSdgm5Vi\nP/SVik0TkON2nabp8hGkO7w0AEyxJo4OYKi+oeueHHd6Vv/O2Bc45q2+GwJBALLB\ns+LJszQ4U6nkIiD30fN8hhOIsBBOvA6mZhzgqSLSJ8m2CRYstNdeMcAlzHaC5x72\nclBkltRGM6Yh4/d2jW0CQQDqa6UQpcA+xCpSjC0cVZUD9+K57Rfi8K0lmWGECACu\nQh34A9stbCVqH7hn0Maq7Ufb7uJtT/B/ekUbKzC/zjb0\n-----END RSA PRIVATE KEY-----\n",
			[]string{"QwaiIee8+soOa/x7Wqcm0/cqjKswJwviu8/sZNvTp1HzXU+bjl6+X226FQIDAQAB"}},
		{"Node 20: createPrivateKey(pem).export({format: \"jwk\"}) (RSA)", keyRSA, "{\"kty\":\"RSA\",\"n\":\"2CL8T5Kulo0DKS7rcqss9Y8SERMyIge3xyBfMJE9VDQiknPSsAz_TrjBb9ej-D7-Qe64bmg6hY_uk7YOWGUESPvUHisV7hBhRc_EjeZZhULNPKTPa0MGoiHnvPrKDmv8e1qnJtP3KoyrMCcL4rvP7GTb06dR811Pm45evl9tuhU\",\"e\":\"AQAB\",\"d\":\"LMaqsK15n9Tcx8ZhnqLZsJGQM5tfcm9Y4lbRgZVFOFGIrAB0sGYw6hUaddodrQsXz37uFGlhXlQgH9fChwt-ZGKqtW2UHS0pzSb-b8w4iJ2HHgVi-C-Iiv59w83mpjUiK3-ZZCsXwM-xIvchiN7rPpa0n208qnmq1iEUB83uky0\",\"p\":\"-f1HArPrR3aQn59N1XVMXfvXv0GNkvatfyIy-C6YJM-LQ0XvsfXu1oDulkWS2OLcXHHPCmLgGaWb2ssGxMzI0w\",\"q\":\"3VVW9FAVgMbDbYI_xVAPOOFkW_djkhGHjnzdYFQ5ZeJHABOXjOD5MzvpR4fhuXrKCuFVJavvwNbcFc-MMxYgdw\",\"dp\":\"_t46h4bnWPSIfjTsJbRxJ2CblWI_9JWKTROQ43adpunyEaQ7vDQATLEmjg5gqL6h654cd3pW_87YFzjmrb4b\",\"dq\":\"ssGz4smzNDhTqeQiIPfR83yGE4iwEE68DqZmHOCpItInybYJFiy0114xwCXMdoLnHvZyUGSW1EYzpiHj93aNbQ\",\"qi\":\"6mulEKXAPsQqUowtHFWVA_fiue0X4vCtJZlhhAgArkId-APbLWwlah-4Z9DGqu1H2-7ibU_wf3pFGyswv8429A\"}",
			[]string{"LMaqsK15n9Tcx8ZhnqLZsJGQM5tfcm9Y4lbRgZVFOFGIrAB0sGYw6hUaddodrQsXz37uFGlhXlQgH9fChwt-ZGKqtW2UHS0pzSb-b8w4iJ2HHgVi-C-Iiv59w83mpjUiK3-ZZCsXwM-xIvchiN7rPpa0n208qnmq1iEUB83uky0", "-f1HArPrR3aQn59N1XVMXfvXv0GNkvatfyIy-C6YJM-LQ0XvsfXu1oDulkWS2OLcXHHPCmLgGaWb2ssGxMzI0w", "6mulEKXAPsQqUowtHFWVA_fiue0X4vCtJZlhhAgArkId-APbLWwlah-4Z9DGqu1H2-7ibU_wf3pFGyswv8429A"}},
		{"Node 20: export({type: \"pkcs8\", format: \"der\"}).toString(\"hex\") (RSA)", keyRSA, "30820277020100300d06092a864886f70d0101010500048202613082025d02010002818100d822fc4f92ae968d03292eeb72ab2cf58f121113322207b7c7205f30913d5434229273d2b00cff4eb8c16fd7a3f83efe41eeb86e683a858fee93b60e58650448fbd41e2b15ee106145cfc48de6598542cd3ca4cf6b4306a221e7bcfaca0e6bfc7b5aa726d3f72a8cab30270be2bbcfec64dbd3a751f35d4f9b8e5ebe5f6dba1502030100010281802cc6aab0ad799fd4dcc7c6619ea2d9b09190339b5f726f58e256d1819545385188ac0074b06630ea151a75da1dad0b17cf7eee1469615e54201fd7c2870b7e6462aab56d941d2d29cd26fe6fcc38889d871e0562f82f888afe7dc3cde6a635222b7f99642b17c0cfb122f72188deeb3e96b49f6d3caa79aad6211407cdee932d024100f9fd4702b3eb4776909f9f4dd5754c5dfbd7bf418d92f6ad7f2232f82e9824cf8b4345efb1f5eed680ee964592d8e2dc5c71cf0a62e019a59bdacb06c4ccc8d3024100dd5556f4501580c6c36d823fc5500f38e1645bf7639211878e7cdd60543965e2470013978ce0f9333be94787e1b97aca0ae15525abefc0d6dc15cf8c33162077024000fede3a8786e758f4887e34ec25b47127609b95623ff4958a4d1390e3769da6e9f211a43bbc34004cb1268e0e60a8bea1eb9e1c777a56ffced81738e6adbe1b024100b2c1b3e2c9b3343853a9e42220f7d1f37c861388b0104ebc0ea6661ce0a922d227c9b609162cb4d75e31c025cc7682e71ef672506496d44633a621e3f7768d6d024100ea6ba510a5c03ec42a528c2d1c559503f7e2b9ed17e2f0ad259961840800ae421df803db2d6c256a1fb867d0c6aaed47dbeee26d4ff07f7a451b2b30bfce36f4",
			[]string{"2cc6aab0ad799fd4dcc7c6619ea2d9b0", "f9fd4702b3eb4776909f9f4dd5754c5d"}},
		{"openssl pkey -text -noout (Ed25519)", keyEd25519, "ED25519 Private-Key:\npriv:\n    4b:06:2c:ad:49:ac:40:1d:13:4d:70:88:51:7f:d1:\n    82:63:f1:06:2a:a0:a3:2e:de:09:00:85:d5:fb:1c:\n    2e:18\npub:\n    2e:20:95:98:df:1b:98:9f:6a:c3:ea:bc:16:8d:02:\n    a4:0c:f8:c8:3b:86:05:76:e7:d9:11:e8:d4:09:07:\n    f9:32\n",
			[]string{"4b:06:2c:ad:49:ac:40:1d:13:4d:70:88:51:7f:d1:"}},
		{"Node 20: export({format: \"jwk\"}) (Ed25519)", keyEd25519, "{\"crv\":\"Ed25519\",\"d\":\"SwYsrUmsQB0TTXCIUX_RgmPxBiqgoy7eCQCF1fscLhg\",\"x\":\"LiCVmN8bmJ9qw-q8Fo0CpAz4yDuGBXbn2RHo1AkH-TI\",\"kty\":\"OKP\"}",
			[]string{"SwYsrUmsQB0TTXCIUX_RgmPxBiqgoy7eCQCF1fscLhg"}},
		{"Node 20: export({type: \"pkcs8\", format: \"der\"}).toString(\"hex\") (Ed25519)", keyEd25519, "302e020100300506032b6570042204204b062cad49ac401d134d7088517fd18263f1062aa0a32ede090085d5fb1c2e18",
			[]string{"4b062cad49ac401d134d7088517fd18263f1062aa0a32ede090085d5fb1c2e18"}},
		{"Node 20: export({format: \"jwk\"}) (P-256)", keyP256, "{\"kty\":\"EC\",\"x\":\"2yVttZHKY8E-NdUxPyzB51fo22Rc1tpZtRJVZaTnPUA\",\"y\":\"Z9vgkig09xZJHhtkeBrds4bprsPbriL3D5NS-_9_AH4\",\"crv\":\"P-256\",\"d\":\"fvBx7zb3N3QAbr4XAbhWsdt7snlt4RxYJUhE7Q0fYnY\"}",
			[]string{"fvBx7zb3N3QAbr4XAbhWsdt7snlt4RxYJUhE7Q0fYnY"}},
	}
	for _, tc := range tests {
		t.Run(tc.encoder, func(t *testing.T) {
			e := indSession(t)
			indWithholdKey(t, e, tc.key)
			indNoSecret(t, indLater(t, e, engine.Text, tc.output), tc.key, tc.forms...)
		})
	}
}

// TestOutsidePrivateKeyKeepsPublicParts: after a key was withheld, its
// public key (as SPKI PEM, as a public JWK) and the hex of digests of
// other data pass byte for byte: only the key's secret numbers joined the
// session's set.
func TestOutsidePrivateKeyKeepsPublicParts(t *testing.T) {
	tests := []struct {
		name, key, output string
	}{
		{"the public key as SPKI PEM (RSA)", keyRSA, "-----BEGIN PUBLIC KEY-----\nMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDYIvxPkq6WjQMpLutyqyz1jxIR\nEzIiB7fHIF8wkT1UNCKSc9KwDP9OuMFv16P4Pv5B7rhuaDqFj+6Ttg5YZQRI+9Qe\nKxXuEGFFz8SN5lmFQs08pM9rQwaiIee8+soOa/x7Wqcm0/cqjKswJwviu8/sZNvT\np1HzXU+bjl6+X226FQIDAQAB\n-----END PUBLIC KEY-----\n"},
		{"the public JWK (RSA)", keyRSA, "{\"kty\":\"RSA\",\"n\":\"2CL8T5Kulo0DKS7rcqss9Y8SERMyIge3xyBfMJE9VDQiknPSsAz_TrjBb9ej-D7-Qe64bmg6hY_uk7YOWGUESPvUHisV7hBhRc_EjeZZhULNPKTPa0MGoiHnvPrKDmv8e1qnJtP3KoyrMCcL4rvP7GTb06dR811Pm45evl9tuhU\",\"e\":\"AQAB\"}"},
		{"the public key as SPKI PEM (Ed25519)", keyEd25519, "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEALiCVmN8bmJ9qw+q8Fo0CpAz4yDuGBXbn2RHo1AkH+TI=\n-----END PUBLIC KEY-----\n"},
		{"the public JWK (Ed25519)", keyEd25519, "{\"crv\":\"Ed25519\",\"x\":\"LiCVmN8bmJ9qw-q8Fo0CpAz4yDuGBXbn2RHo1AkH-TI\",\"kty\":\"OKP\"}"},
		{"sha256 of unrelated files", keyRSA, "sha256  6466e450a16b77b865c5829d6b6c56d9f892956475642dbeb9ccc4340fe01b15  report.pdf\nsha256  aff6100bd4df0ea66736e1d3304208069a0f24303e21b43422398c935540a236  photo.jpg\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := indSession(t)
			indWithholdKey(t, e, tc.key)
			if got := indLater(t, e, engine.Text, tc.output); got != tc.output {
				t.Errorf("an output without the key's secret numbers was changed\nlater: %q\nview:  %s", tc.output, got)
			}
		})
	}
}
