package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescriptor pins what a descriptor is: the value of a name whose
// last word says so, in that word's shape, and nothing that a secret's
// name or shape could be.
func TestDescriptor(t *testing.T) {
	tests := []struct {
		name, value string
		want        bool
	}{
		{"APP_VERSION", "2.14.3-rc1", true},
		{"NODE_VERSION", "v20.11.1", true},
		{"version", "1.0.0+build.5", true},
		{"GIT_SHA", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", true},
		{"gitSha", "3f9a1c2", true},
		{"SOURCE_COMMIT", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", true},
		{"BUILD", "20260314.1", true},
		{"CI_BUILD", "20260314-1432", true},
		{"AWS_REGION", "eu-west-1", true},
		{"region", "us-gov-west-1", true},
		{"GCP_REGION", "europe-west1", true},
		// the value is not of the shape its name says
		{"GIT_SHA", "sk_live_51HqLyjWDarjtT1zd", false},
		{"GIT_SHA", "3F9A1C27B8E4D05F6A2B9C8D7E1F0A3B4C5D6E7F", false}, // git writes small letters
		{"GIT_SHA", "3f9a1c", false},
		{"APP_VERSION", "2.14.3-xK9mP2vL8qR4", false},
		{"BUILD", "20260314.1.2.3.4.5.6.7.8.9", false},
		{"REGION", "eu-west-1a-Xk9p", false},
		// a secret's name, whatever its last word
		{"SIGNING_KEY_VERSION", "3", false},
		{"TOKEN_SHA", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
		{"webhookSecretSha", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
		// no descriptor's name
		{"STRIPE_KEY", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
		{"HASH", "3f9a1c27b8e4d05f6a2b9c8d7e1f0a3b4c5d6e7f", false},
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

// TestLabelBefore pins the labels a descriptor is read after.
func TestLabelBefore(t *testing.T) {
	tests := []struct{ text, want string }{
		{"GIT_SHA=3f9a", "GIT_SHA"},
		{"GIT_SHA = 3f9a", "GIT_SHA"},
		{"git_sha: 3f9a", "git_sha"},
		{`{"gitSha": "3f9a"}`, "gitSha"},
		{`GIT_SHA="3f9a"`, "GIT_SHA"},
		{"commit 3f9a", ""},
		{"3f9a", ""},
	}
	for _, tt := range tests {
		i := strings.Index(tt.text, "3f9a")
		assert.Equal(t, tt.want, labelBefore(tt.text, i), "labelBefore(%q)", tt.text)
	}
}

// TestDescriptorsOfAWithheldTextStayOutOfTheSet: of a withheld .env (at
// an x-sensitive member) and a deploy record withheld whole, later
// outputs keep the version, the commit, the build number and the region,
// and still lose the key beside them and the text itself; a commit's
// hash named as a secret, or standing once without its label, still
// joins.
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
		{"CommitInYAML", "app:\n  git_sha: " + sha + "\n  stripe_key: " + key + "\n", "", "commit " + sha, true},
		{"KeyBesideThem", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "key " + key, false},
		{"PieceOfTheKeyBesideThem", "APP_VERSION=2.14.3-rc1\nGIT_SHA=" + sha + "\nSTRIPE_KEY=" + key + "\n", "", "p7dcXk4Rm9QvB2sL", false},
		{"TheTextItself", "APP_VERSION=2.14.3-rc1\nREGION=eu-west-1\n", "", "APP_VERSION=2.14.3-rc1\nREGION=eu-west-1\n", false},
		{"CommitNamedAsASecret", "TOKEN_SHA=" + sha + "\nREGION=eu-west-1\n", "", "commit " + sha, false},
		{"CommitAlsoWithoutItsLabel", "GIT_SHA=" + sha + "\nprevious " + sha + "\n", "", "commit " + sha, false},
		{"RegionOfAWholeRecord", "", `{"deploy":{"region":"eu-west-1","token":"` + key + `"}}`, "in eu-west-1", true},
		{"KeyOfAWholeRecord", "", `{"deploy":{"region":"eu-west-1","token":"` + key + `"}}`, "token " + key, false},
		{"CommitOfAWholeText", "", `{"env":"GIT_SHA=` + sha + ` REGION=us-east-1 STRIPE_KEY=` + key + `"}`, "commit " + sha + " in us-east-1", true},
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
