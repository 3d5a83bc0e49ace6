package heddle

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/heddle/llm"
	wire "github.com/heimdall-tui/heimdall-tui/wire/heddle"
)

// The environment a worker reads (heddle's own names).
const (
	EnvBaseURL   = "HEDDLE_BASE_URL"           // the endpoint's base ("": llm.DefaultBaseURL)
	EnvAPIKey    = "OPENROUTER_API_KEY"        // the Bearer token
	EnvHome      = "HEDDLE_HOME"               // state directory ("": ~/.heddle)
	EnvVersion   = "HEDDLE_PROTOCOL_VERSION"   // the version advertised ("": wire.Version)
	EnvHeartbeat = "HEDDLE_HEARTBEAT_INTERVAL" // ms between heartbeats ("": 5000)
)

// ConfigFromEnv is a worker's Config from the environment (getenv:
// os.Getenv), working in dir. A malformed variable is an error naming it.
func ConfigFromEnv(getenv func(string) string, dir string) (Config, error) {
	cfg := Config{Dir: dir, LLM: &llm.Client{BaseURL: getenv(EnvBaseURL), APIKey: getenv(EnvAPIKey)}}
	if v := getenv(EnvVersion); v != "" {
		if _, err := wire.ParseVersion(v); err != nil {
			return Config{}, fmt.Errorf("%s: %w", EnvVersion, err)
		}
		cfg.Version = v
	}
	if v := getenv(EnvHeartbeat); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return Config{}, fmt.Errorf("%s: %q is not a positive number of milliseconds", EnvHeartbeat, v)
		}
		cfg.Heartbeat = time.Duration(ms) * time.Millisecond
	}
	cfg.Home = getenv(EnvHome)
	if cfg.Home == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return Config{}, fmt.Errorf("%s unset and no home directory: %w", EnvHome, err)
		}
		cfg.Home = filepath.Join(home, ".heddle")
	}
	return cfg, nil
}
