//go:build attack

package engine_test

// Red-team cases against descriptors (descriptors.go): a word of a
// withheld text that a name and a shape call a version, a commit, a
// build or a region stays out of the session's set on its own. Each
// case withholds a text whole (read_profile, sensitiveHint) in which a
// secret stands where a descriptor may, and a later ordinary output
// (read_log) repeats the secret alone, as a JSON member and in a log
// line. TestRed2Descriptor* cases that fail are leaks: the secret came
// back. Run on main and on this branch to tell a regression.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/veilmcp/veil/wasm/engine"
)

// Values generated once by Python's random (seeded), in the shapes their
// issuers use: lowercase hexadecimal of 64, 40 and 32 digits (an HMAC or
// webhook secret, a legacy 40-digit API token, a Datadog or Twilio key).
const (
	r2Hex64 = "0d951c95602f417c2d017e07fc10d0f9061bfd7105da2c888018a460eaf5d6e7"
	r2Hex40 = "693d8605b771eaa590bfca56ad9548c5dfc3418c"
	r2Hex32 = "9ea89998e9ad40144eae588d4bdddec5"
)

// r2Text returns text as the JSON string a tool returns.
func r2Text(text string) string {
	b, _ := json.Marshal(text)
	return string(b)
}

// r2Laters are the later outputs that repeat secret: alone, as a JSON
// member and in a log line.
func r2Laters(secret string) []string {
	return []string{secret, `{"value":"` + secret + `"}`, "2026-11-29 deploy checked " + secret + " ok"}
}

// r2Desc is a text withheld whole and the secret in it.
type r2Desc struct {
	name, text, secret string
}

func runR2Desc(t *testing.T, cases []r2Desc) {
	var lc []redLeakCase
	for _, c := range cases {
		lc = append(lc, redLeakCase{name: c.name, whole: r2Text(c.text), kind: engine.Text,
			laters: r2Laters(c.secret), gone: []string{c.secret}})
	}
	runRedLeakCases(t, lc)
}

// TestRed2DescriptorSecretNameCompounds: secretNameWords is compared
// word by word, so a secret's name written as one word (APIKEY,
// SECRETKEY, ACCESSTOKEN, CLIENTSECRET), in the plural (KEYS, SECRETS,
// TOKENS) or abbreviated (PW, CREDS, JWT) does not count as a secret's,
// and a hexadecimal secret after it is taken for a commit.
func TestRed2DescriptorSecretNameCompounds(t *testing.T) {
	runR2Desc(t, []r2Desc{
		{"APIKEY_SHA", "APIKEY_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"SECRETKEY_SHA", "SECRETKEY_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"ACCESSTOKEN_COMMIT", "ACCESSTOKEN_COMMIT=" + r2Hex40 + "\n", r2Hex40},
		{"CLIENTSECRET_REVISION", "CLIENTSECRET_REVISION=" + r2Hex40 + "\n", r2Hex40},
		{"AUTHTOKEN_SHA json", `{"authtoken_sha": "` + r2Hex32 + `"}`, r2Hex32},
		{"API_KEYS_SHA", "API_KEYS_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"SECRETS_SHA yaml", "secrets_sha: " + r2Hex64 + "\n", r2Hex64},
		{"TOKENS_COMMIT", "TOKENS_COMMIT=" + r2Hex40 + "\n", r2Hex40},
		{"DB_PW_SHA", "DB_PW_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"PASSCODE_SHA", "PASSCODE_SHA=" + r2Hex32 + "\n", r2Hex32},
		{"CREDS_SHA", "CREDS_SHA=" + r2Hex40 + "\n", r2Hex40},
		{"JWT_SHA", "JWT_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"BEARER_SHA", "BEARER_SHA=" + r2Hex40 + "\n", r2Hex40},
		{"WEBHOOK_SHA", "GITHUB_WEBHOOK_SHA=" + r2Hex40 + "\n", r2Hex40},
		{"APIKeySha camel", `{"APIKeySha":"` + r2Hex40 + `"}`, r2Hex40},
		{"clave_sha Spanish", "CLAVE_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"schluessel_commit German", "SCHLUESSEL_COMMIT=" + r2Hex40 + "\n", r2Hex40},
		{"motdepasse_sha French", "MOTDEPASSE_SHA=" + r2Hex32 + "\n", r2Hex32},
		{"KEY2_SHA digit", "KEY2_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"PRIVKEY_SHA", "PRIVKEY_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"STRIPE_SK_REVISION", "STRIPE_SK_REVISION=" + r2Hex40 + "\n", r2Hex40},
		{"GH_PAT_COMMIT", "GH_PAT_COMMIT=" + r2Hex40 + "\n", r2Hex40},
	})
}

// TestRed2DescriptorShapesCarrySecrets: the shapes a descriptor's value
// may have hold far more than a version or a build: a release of four
// identifiers of ten letters and four digits each (some 240 bits), a
// password of letters then digits as a pre-release (Summer2024), a
// build of 24 digits (a card number fits), any hexadecimal under a
// commit's name.
func TestRed2DescriptorShapesCarrySecrets(t *testing.T) {
	rel := "1-qzxkvbnwrt4821.mpqlzhrtyv1093.wkfjdhsgae5521.xbvncmzlqp8812"
	runR2Desc(t, []r2Desc{
		{"APP_VERSION random ids", "APP_VERSION=" + rel + "\n", rel},
		{"APP_VERSION random id alone", "APP_VERSION=" + rel + "\n", "qzxkvbnwrt4821.mpqlzhrtyv1093"},
		{"RELEASE password", "RELEASE=1+Summer2024x\n", "1+Summer2024x"},
		{"build card number", `{"build": "4111111111111111", "id": 7}`, "4111111111111111"},
		{"CI_BUILD 24 digits", "CI_BUILD=831946205718364920571836\n", "831946205718364920571836"},
		{"GIT_SHA holding a 64-digit secret", "GIT_SHA=" + r2Hex64 + "\n", r2Hex64},
		{"DEPLOY_COMMIT holding a 32-digit key", "DEPLOY_COMMIT=" + r2Hex32 + "\n", r2Hex32},
	})
}

// TestRed2DescriptorValueIsTheKey: the same value stands after a
// descriptor's name and after a key's name; it must join, whichever
// comes first, in a short text and in a long one (hintedParts reads a
// long text's repeated words once).
func TestRed2DescriptorValueIsTheKey(t *testing.T) {
	pad := strings.Repeat("NOTE_LINE=the deploy went fine and nothing else happened here today\n", 12)
	runR2Desc(t, []r2Desc{
		{"key first", "API_TOKEN=" + r2Hex40 + "\nGIT_SHA=" + r2Hex40 + "\n", r2Hex40},
		{"descriptor first", "GIT_SHA=" + r2Hex40 + "\nAPI_TOKEN=" + r2Hex40 + "\n", r2Hex40},
		{"long, descriptor first", "GIT_SHA=" + r2Hex40 + "\n" + pad + "API_TOKEN=" + r2Hex40 + "\n", r2Hex40},
		{"long, descriptor first, unlabelled later", "GIT_SHA=" + r2Hex40 + "\n" + pad + "token " + r2Hex40 + "\n", r2Hex40},
		{"label chain", "token=GIT_SHA=" + r2Hex40 + "\n", r2Hex40},
		{"header value", "Authorization: GIT_SHA=" + r2Hex40 + "\n", r2Hex40},
		{"url query", "https://api.example/v1?api_key=x&git_sha=" + r2Hex40, r2Hex40},
		{"key path then commit", "/keys/" + r2Hex40 + " GIT_SHA=" + r2Hex40, r2Hex40},
	})
}

// TestRed2DescriptorOrdinaryFormats: a descriptor in the formats
// backends write keeps its value in later outputs (the ordinary side):
// JSON, YAML, TOML, INI, a shell export, a Dockerfile's ENV, a
// Kubernetes ConfigMap; the key beside it still goes.
func TestRed2DescriptorOrdinaryFormats(t *testing.T) {
	key := "sk_live_51HqLyjWDarjtT1zdp7dc6Sc9ia4Tq4N"
	commit := "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f"
	texts := map[string]string{
		"json":      `{"git_sha": "` + commit + `", "stripe_key": "` + key + `"}`,
		"yaml":      "git_sha: " + commit + "\nstripe_key: " + key + "\n",
		"toml":      "git_sha = \"" + commit + "\"\nstripe_key = \"" + key + "\"\n",
		"ini":       "[build]\nGitSha=" + commit + "\n[secrets]\nStripeKey=" + key + "\n",
		"export":    "export GIT_SHA=" + commit + "\nexport STRIPE_KEY=" + key + "\n",
		"docker":    "ENV GIT_SHA=" + commit + "\nENV STRIPE_KEY=" + key + "\n",
		"configmap": "apiVersion: v1\nkind: ConfigMap\ndata:\n  GIT_SHA: \"" + commit + "\"\n  STRIPE_KEY: \"" + key + "\"\n",
	}
	for name, text := range texts {
		t.Run(name, func(t *testing.T) {
			e := redSession(t)
			redWithholdWhole(t, e, r2Text(text))
			if v := redRead(t, e, engine.Text, "built from "+commit); v != "built from "+commit {
				t.Errorf("the commit did not survive: %q", v)
			}
			if v := redRead(t, e, engine.Text, "key "+key); redGives(v, key) {
				t.Errorf("the key came back: %q", v)
			}
		})
	}
}

// TestRed2DescriptorContextIgnored: the label right before a value is
// all that is read, so a hexadecimal secret (secrets.token_hex) under a
// descriptor's name is released whatever holds it: a Kubernetes Secret,
// an INI section or a YAML mapping that names a secret, a secret
// manager's export where the user named the secret.
func TestRed2DescriptorContextIgnored(t *testing.T) {
	runR2Desc(t, []r2Desc{
		{"k8s Secret stringData", "apiVersion: v1\nkind: Secret\ntype: Opaque\nstringData:\n  RELEASE_SHA: " + r2Hex64 + "\n", r2Hex64},
		{"INI section", "[stripe_secret]\nsha = " + r2Hex40 + "\n", r2Hex40},
		{"YAML nesting", "webhook_secret:\n  sha: " + r2Hex64 + "\n", r2Hex64},
		{"API keys listed by the names their owners chose", "Your API keys:\n  deploy-sha: " + r2Hex32 + "\n  prod-backend: " + r2Hex40 + "\n", r2Hex32},
		{"secret manager export", "# exported secrets\nexport DEPLOY_HOOK_SHA=\"" + r2Hex64 + "\"\n", r2Hex64},
	})
}
