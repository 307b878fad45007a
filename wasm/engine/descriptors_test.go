package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescriptor pins what a descriptor's name and value are: a whole
// name of descriptorNames, in any case and with any of its separators,
// and a value in the shape it asks for; no name composed of a secret's
// words (the names below all released a hexadecimal secret when a name's
// last word was enough), and no shape wide enough for a secret.
func TestDescriptor(t *testing.T) {
	const (
		hex64 = "0d951c95602f417c2d017e07fc10d0f9061bfd7105da2c888018a460eaf5d6e7"
		hex40 = "693d8605b771eaa590bfca56ad9548c5dfc3418c"
		hex32 = "9ea89998e9ad40144eae588d4bdddec5"
	)
	tests := []struct {
		name, value string
		want        bool
	}{
		{"APP_VERSION", "2.14.3-rc1", true},
		{"NODE_VERSION", "v20.11.1", true},
		{"version", "1.0.0+build.5", true},
		{"RELEASE", "2026.3.14", true},
		{"GIT_SHA", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", true},
		{"gitSha", "3f9a1c2", true},
		{"git-sha", "3f9a1c2", true},
		{"GITHUB_SHA", hex40, true},
		{"CI_COMMIT_SHA", hex40, true},
		{"VERCEL_GIT_COMMIT_SHA", hex40, true},
		{"HEROKU_SLUG_COMMIT", hex40, true},
		{"SOURCE_COMMIT", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", true},
		{"BUILD", "20260314.1", true},
		{"CI_BUILD", "20260314-1432", true},
		{"BUILD_NUMBER", "4821", true},
		{"AWS_REGION", "eu-west-1", true},
		{"region", "us-gov-west-1", true},
		// the value is not of the shape its name says, or one too wide
		{"GIT_SHA", "sk_live_51HqLyjWDarjtT1zd", false},
		{"GIT_SHA", "3F9A1C27B8E4D05F6A2B9C8D7E1F0A3B4C5D6E7F", false}, // git writes small letters
		{"GIT_SHA", "3f9a1c", false},
		{"GIT_SHA", hex64, false},
		{"GIT_SHA", "4111111111111111", false}, // no letter: a number, not a commit
		{"APP_VERSION", "2.14.3-xK9mP2vL8qR4", false},
		{"APP_VERSION", "1-qzxkvbnwrt4821.mpqlzhrtyv1093.wkfjdhsgae5521.xbvncmzlqp8812", false},
		{"APP_VERSION", "20260314.48213.1", false},
		{"RELEASE", "1+Summer2024x", false},
		{"BUILD", "20260314.1.2.3.4.5.6.7.8.9", false},
		{"BUILD", "4111111111111111", false},
		{"CI_BUILD", "831946205718364920571836", false},
		{"BUILD", "20261314.1", false}, // no month 13
		{"REGION", "eu-west-1a-Xk9p", false},
		// a name not on the list, whatever its words
		{"SIGNING_KEY_VERSION", "3", false},
		{"TOKEN_SHA", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
		{"webhookSecretSha", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
		{"APIKEY_SHA", hex40, false},
		{"SECRETKEY_SHA", hex40, false},
		{"ACCESSTOKEN_COMMIT", hex40, false},
		{"CLIENTSECRET_REVISION", hex40, false},
		{"authtoken_sha", hex32, false},
		{"API_KEYS_SHA", hex40, false},
		{"secrets_sha", hex40, false},
		{"TOKENS_COMMIT", hex40, false},
		{"DB_PW_SHA", hex40, false},
		{"PASSCODE_SHA", hex32, false},
		{"CREDS_SHA", hex40, false},
		{"JWT_SHA", hex40, false},
		{"BEARER_SHA", hex40, false},
		{"GITHUB_WEBHOOK_SHA", hex40, false},
		{"APIKeySha", hex40, false},
		{"CLAVE_SHA", hex40, false},
		{"SCHLUESSEL_COMMIT", hex40, false},
		{"MOTDEPASSE_SHA", hex32, false},
		{"KEY2_SHA", hex40, false},
		{"PRIVKEY_SHA", hex40, false},
		{"STRIPE_SK_REVISION", hex40, false},
		{"GH_PAT_COMMIT", hex40, false},
		{"RELEASE_SHA", hex40, false},
		{"DEPLOY_COMMIT", hex32, false},
		{"DEPLOY_HOOK_SHA", hex40, false},
		{"deploy-sha", hex32, false},
		{"sha", hex40, false},
		{"GIT_SHA_GIT_SHA", hex40, false},
		{"X_GIT_SHA", hex40, false},
		{"STRIPE_KEY", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
		{"HASH", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
		{"GIT SHA", hex40, false},
		{"", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, descriptor(tt.name, tt.value), "descriptor(%q, %q)", tt.name, tt.value)
	}
}

// TestRegionValue pins a cloud region's shape.
func TestRegionValue(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"us-east-1", true},
		{"eu-west-1", true},
		{"ap-southeast-2", true},
		{"us-gov-west-1", true},
		{"europe-west1", true},
		{"northamerica-northeast1", true},
		{"us-central1", true},
		{"us-east", false},        // no number
		{"us-east-123", false},    // three digits
		{"xx-east-1", false},      // no area
		{"us-eastt-1", false},     // no direction
		{"us-west-east-1", false}, // two directions
		{"eu-west-1-Xk9p", false},
		{"unsaid-unreal-1", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, regionValue(tt.v), "regionValue(%q)", tt.v)
	}
}

// TestDescriptorWordsAtTheTopLevelAlone pins where a descriptor's label
// must stand: first on a line that is not indented, after export, ENV or
// set or nothing, alone on it, before any INI section or YAML parent key,
// or a member of a JSON object itself; a word that also stands anywhere
// else is none.
func TestDescriptorWordsAtTheTopLevelAlone(t *testing.T) {
	const sha = "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f"
	tests := []struct {
		name, text string
		want       bool
	}{
		{"DotEnv", "APP_VERSION=2.14.3\nGIT_SHA=" + sha + "\n", true},
		{"Spaced", "GIT_SHA = " + sha, true},
		{"YAML", "git_sha: " + sha + "\n", true},
		{"Quoted", `GIT_SHA="` + sha + `"`, true},
		{"TOML", "git_sha = '" + sha + "'\n", true},
		{"Export", "export GIT_SHA=" + sha + "\n", true},
		{"Dockerfile", "ENV GIT_SHA=" + sha + "\n", true},
		{"Batch", "set GIT_SHA=" + sha + "\r\n", true},
		{"AfterAComment", "# deploy\nGIT_SHA=" + sha + "\n", true},
		{"JSONMember", `{"gitSha": "` + sha + `", "id": 7}`, true},
		{"JSONNested", `{"build": {"git_sha": "` + sha + `"}}`, false},
		{"JSONInAList", `{"list": ["x"], "a": [{"git_sha": "` + sha + `"}]}`, false},
		{"JSONValueOfAnotherName", `{"token": "` + sha + `", "git_sha": "x"}`, false},
		{"Indented", "  GIT_SHA=" + sha + "\n", false},
		{"UnderAYAMLParent", "webhook_secret:\n  git_sha: " + sha + "\n", false},
		{"AfterAYAMLParent", "webhook_secret:\ngit_sha: " + sha + "\n", false},
		{"AfterAnINISection", "[stripe_secret]\nGIT_SHA = " + sha + "\n", false},
		{"AfterAHeaderName", "Authorization: GIT_SHA=" + sha + "\n", false},
		{"NotFirstOnItsLine", "token=x GIT_SHA=" + sha + "\n", false},
		{"NotAloneOnItsLine", "GIT_SHA=" + sha + " # prod\n", false},
		{"InAQuery", "https://api.example/v1?api_key=x&git_sha=" + sha, false},
		{"AlsoElsewhere", "GIT_SHA=" + sha + "\ntoken " + sha + "\n", false},
		{"AlsoUnderAKeysName", "API_TOKEN=" + sha + "\nGIT_SHA=" + sha + "\n", false},
		{"CommitCalledSHA", "sha: " + sha + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, descriptorWords(tt.text)[sha], "descriptorWords(%q)[commit]", tt.text)
		})
	}
}

// TestDescriptorsOfAWithheldTextStayOutOfTheSet: of a withheld .env (at
// an x-sensitive member) and a deploy record withheld whole, later
// outputs keep the version, the commit, the build number and the region,
// and still lose the key beside them and the text itself; a commit's
// hash named as a secret, standing once without its label, under a YAML
// parent key or not first on its line, still joins.
func TestDescriptorsOfAWithheldTextStayOutOfTheSet(t *testing.T) {
	const key = "sk_live_51HqLyjWDarjtT1zdp7dcXk4Rm9QvB2sLw8TnJ3yE"
	const sha = "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f"
	tests := []struct {
		name     string
		withheld string // at create_key's x-sensitive member
		whole    string // read_profile's output, withheld whole
		later    string
		kept     bool
	}{
		{"VersionOfADotEnv", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "myapp 2.14.3-rc1", true},
		{"CommitOfADotEnv", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "commit " + sha, true},
		{"PieceOfTheCommit", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "at " + sha[:12], true},
		{"LineOfTheCommit", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "GIT_SHA=" + sha, true},
		{"CommitInYAML", "git_sha: " + sha + "\nstripe_key: " + key + "\n", "", "commit " + sha, true},
		{"CommitUnderAYAMLParent", "app:\n  git_sha: " + sha + "\n  stripe_key: " + key + "\n", "", "commit " + sha, false},
		{"KeyBesideThem", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "key " + key, false},
		{"PieceOfTheKeyBesideThem", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "p7dcXk4Rm9QvB2sL", false},
		{"TheTextItself", "APP_VERSION=2.14.3-rc1\nREGION=eu-west-1\n", "", "APP_VERSION=2.14.3-rc1\nREGION=eu-west-1\n", false},
		{"CommitNamedAsASecret", "TOKEN_SHA=" + sha + "\nREGION=eu-west-1\n", "", "commit " + sha, false},
		{"CommitAlsoWithoutItsLabel", "GIT_SHA=" + sha + "\nprevious " + sha + "\n", "", "commit " + sha, false},
		{"RegionOfAWholeRecord", "", `{"deploy":{"region":"eu-west-1","token":"` + key + `"}}`, "in eu-west-1", true},
		{"KeyOfAWholeRecord", "", `{"deploy":{"region":"eu-west-1","token":"` + key + `"}}`, "token " + key, false},
		{"CommitOfAWholeText", "", `{"env":"GIT_SHA=` + sha + `\nREGION=us-east-1\nSTRIPE_KEY=` + key + `"}`, "commit " + sha + " in us-east-1", true},
		{"CommitOfAJSONText", "", `"{\"git_sha\": \"` + sha + `\", \"stripe_key\": \"` + key + `\"}"`, "commit " + sha, true},
		{"KeyOfAJSONText", "", `"{\"git_sha\": \"` + sha + `\", \"stripe_key\": \"` + key + `\"}"`, "key " + key, false},
		{"CommitNestedInAJSONText", "", `"{\"build\": {\"git_sha\": \"` + sha + `\"}, \"stripe_key\": \"` + key + `\"}"`, "commit " + sha, false},
		{"CommitNotFirstOnItsLine", "", `{"env":"REGION=us-east-1 GIT_SHA=` + sha + ` STRIPE_KEY=` + key + `"}`, "commit " + sha, false},
		{"KeyOfAWholeText", "", `{"env":"GIT_SHA=` + sha + ` REGION=us-east-1 STRIPE_KEY=` + key + `"}`, "key " + key, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t)
			mustRegister(t, e, createKeyDef)
			mustRegister(t, e, readProfileDef)
			mustRegister(t, e, laterToolDef)
			if tt.withheld != "" {
				res := e.OutputOf("create_key", Outcome{Kind: Returned, Data: jsonText(map[string]any{"id": "k1", "key": tt.withheld})})
				require.Nil(t, res.Err)
				require.Equal(t, 1, res.Held)
			}
			if tt.whole != "" {
				res := e.OutputOf("read_profile", Outcome{Kind: Returned, Data: tt.whole})
				require.Nil(t, res.Err)
				require.NotZero(t, res.Held)
			}
			res := e.OutputOf("later_tool", Outcome{Kind: Text, Data: tt.later})
			require.Nil(t, res.Err)
			if tt.kept {
				assert.Equal(t, tt.later, res.Agent, "later_tool's view of %q", tt.later)
			} else {
				assert.False(t, res.Unchanged, "later_tool passed %q", tt.later)
			}
		})
	}
}
