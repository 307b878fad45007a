package engine

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPrivateKeyPartsReadsTheSecretNumbers: the secret numbers of a PEM
// private key are read from PKCS#8, SEC1 and PKCS#1, the public ones are
// not, and what is no unencrypted key gives none.
func TestPrivateKeyPartsReadsTheSecretNumbers(t *testing.T) {
	// openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256, as
	// PKCS#8, and openssl ec's SEC1 of it.
	const pkcs8 = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX\n/gJZk87K7GQmQzcpueXeLxSvQPWhRANCAATfU6fmE63vP5yeKRI8KdOxqtmpehfE\nMDUZ5xBHy+uX09WDiDyZwqAHfbuyfnudSq5QOYQRnvloLkbmkMQCkglQ\n-----END PRIVATE KEY-----\n"
	const sec1 = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIGZV/W9cacEsVRBD1/4CWZPOyuxkJkM3Kbnl3i8Ur0D1oAoGCCqGSM49\nAwEHoUQDQgAE31On5hOt7z+cnikSPCnTsarZqXoXxDA1GecQR8vrl9PVg4g8mcKg\nB327sn57nUquUDmEEZ75aC5G5pDEApIJUA==\n-----END EC PRIVATE KEY-----\n"
	const scalar = "6655fd6f5c69c12c551043d7fe025993cecaec6426433729b9e5de2f14af40f5"
	tests := []struct {
		name string
		pem  string
		want []string // the parts in hex
	}{
		{"PKCS#8 EC", pkcs8, []string{scalar}},
		{"SEC1", sec1, []string{scalar}},
		{"SEC1 in a sentence, CRLF", "key:\r\n" + sec1[:31] + "\r\n" + sec1[31:], []string{scalar}},
		{"PKCS#8 RSA: d, p, q, dp, dq, qi", keyRSA1024, keyRSA1024Parts},
		{"PKCS#8 Ed25519: the seed", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIEsGLK1JrEAdE01wiFF/0YJj8QYqoKMu3gkAhdX7HC4Y\n-----END PRIVATE KEY-----\n", []string{"4b062cad49ac401d134d7088517fd18263f1062aa0a32ede090085d5fb1c2e18"}},
		{"encrypted, with headers", "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nMHcCAQEEIGZV\n-----END RSA PRIVATE KEY-----\n", nil},
		{"a public key", "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE31On5hOt7z+cnikSPCnTsarZqXoX\nxDA1GecQR8vrl9PVg4g8mcKgB327sn57nUquUDmEEZ75aC5G5pDEApIJUA==\n-----END PUBLIC KEY-----\n", nil},
		{"cut short", pkcs8[:100] + "\n-----END PRIVATE KEY-----\n", nil},
		{"no base64", "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----", nil},
		{"no end", "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZlX9b1xpwSxVEEPX", nil},
		{"prose", "the PRIVATE KEY----- line", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range privateKeyParts(tc.pem) {
				got = append(got, hex.EncodeToString(p))
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// keyRSA1024 is a key openssl genpkey wrote, and keyRSA1024Parts the
// secret numbers Node 20 exports of it as a JWK (d, p, q, dp, dq, qi), in hex.
const keyRSA1024 = "-----BEGIN PRIVATE KEY-----\nMIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBANgi/E+SrpaNAyku\n63KrLPWPEhETMiIHt8cgXzCRPVQ0IpJz0rAM/064wW/Xo/g+/kHuuG5oOoWP7pO2\nDlhlBEj71B4rFe4QYUXPxI3mWYVCzTykz2tDBqIh57z6yg5r/HtapybT9yqMqzAn\nC+K7z+xk29OnUfNdT5uOXr5fbboVAgMBAAECgYAsxqqwrXmf1NzHxmGeotmwkZAz\nm19yb1jiVtGBlUU4UYisAHSwZjDqFRp12h2tCxfPfu4UaWFeVCAf18KHC35kYqq1\nbZQdLSnNJv5vzDiInYceBWL4L4iK/n3DzeamNSIrf5lkKxfAz7Ei9yGI3us+lrSf\nbTyqearWIRQHze6TLQJBAPn9RwKz60d2kJ+fTdV1TF37179BjZL2rX8iMvgumCTP\ni0NF77H17taA7pZFktji3Fxxzwpi4Bmlm9rLBsTMyNMCQQDdVVb0UBWAxsNtgj/F\nUA844WRb92OSEYeOfN1gVDll4kcAE5eM4PkzO+lHh+G5esoK4VUlq+/A1twVz4wz\nFiB3AkAA/t46h4bnWPSIfjTsJbRxJ2CblWI/9JWKTROQ43adpunyEaQ7vDQATLEm\njg5gqL6h654cd3pW/87YFzjmrb4bAkEAssGz4smzNDhTqeQiIPfR83yGE4iwEE68\nDqZmHOCpItInybYJFiy0114xwCXMdoLnHvZyUGSW1EYzpiHj93aNbQJBAOprpRCl\nwD7EKlKMLRxVlQP34rntF+LwrSWZYYQIAK5CHfgD2y1sJWofuGfQxqrtR9vu4m1P\n8H96RRsrML/ONvQ=\n-----END PRIVATE KEY-----\n"

var keyRSA1024Parts = []string{
	"2cc6aab0ad799fd4dcc7c6619ea2d9b09190339b5f726f58e256d1819545385188ac0074b06630ea151a75da1dad0b17cf7eee1469615e54201fd7c2870b7e6462aab56d941d2d29cd26fe6fcc38889d871e0562f82f888afe7dc3cde6a635222b7f99642b17c0cfb122f72188deeb3e96b49f6d3caa79aad6211407cdee932d",
	"f9fd4702b3eb4776909f9f4dd5754c5dfbd7bf418d92f6ad7f2232f82e9824cf8b4345efb1f5eed680ee964592d8e2dc5c71cf0a62e019a59bdacb06c4ccc8d3",
	"dd5556f4501580c6c36d823fc5500f38e1645bf7639211878e7cdd60543965e2470013978ce0f9333be94787e1b97aca0ae15525abefc0d6dc15cf8c33162077",
	"fede3a8786e758f4887e34ec25b47127609b95623ff4958a4d1390e3769da6e9f211a43bbc34004cb1268e0e60a8bea1eb9e1c777a56ffced81738e6adbe1b",
	"b2c1b3e2c9b3343853a9e42220f7d1f37c861388b0104ebc0ea6661ce0a922d227c9b609162cb4d75e31c025cc7682e71ef672506496d44633a621e3f7768d6d",
	"ea6ba510a5c03ec42a528c2d1c559503f7e2b9ed17e2f0ad259961840800ae421df803db2d6c256a1fb867d0c6aaed47dbeee26d4ff07f7a451b2b30bfce36f4",
}
