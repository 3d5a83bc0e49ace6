package coord

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/heimdall-tui/heimdall-tui/backend/planning"
)

// ErrInvalid marks a malformed HAID, surface or argument.
var ErrInvalid = errors.New("invalid")

// maxPart bounds each slugified part of a HAID.
const maxPart = 24

// Slugify lower-cases s and maps it to [a-z0-9-]: every run of other
// characters becomes one "-", dashes are trimmed at both ends, and the
// result is cut to 24 characters. An empty result is "unknown".
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > maxPart {
		out = strings.TrimRight(out[:maxPart], "-")
	}
	if out == "" {
		return "unknown"
	}
	return out
}

// Identity is what a root HAID is made of.
type Identity struct {
	Human, Machine, RepoRoot string
}

// Hash4 is the first 4 hex digits of sha256(human \x1f machine \x1f repo
// root), over the slugified human and machine.
func (id Identity) Hash4() string {
	h := sha256.Sum256([]byte(Slugify(id.Human) + "\x1f" + Slugify(id.Machine) + "\x1f" + id.RepoRoot))
	return hex.EncodeToString(h[:])[:4]
}

// HAID is the root HAID: haid:{human}.{machine}-{hash4}.
func (id Identity) HAID() string {
	return fmt.Sprintf("haid:%s.%s-%s", Slugify(id.Human), Slugify(id.Machine), id.Hash4())
}

// Spawn is root's child HAID for role: {root}/{slug(role)}. A root that
// already has a role keeps its root part.
func Spawn(root, role string) string {
	if i := strings.IndexByte(root, '/'); i >= 0 {
		root = root[:i]
	}
	return root + "/" + Slugify(role)
}

// ParseHAID checks h's shape and returns its human part and role ("" for
// a root HAID).
func ParseHAID(h string) (human, role string, err error) {
	rest, ok := strings.CutPrefix(h, "haid:")
	base, role, _ := strings.Cut(rest, "/")
	human, mh, ok2 := strings.Cut(base, ".")
	if !ok || !ok2 || human == "" || mh == "" || strings.ContainsAny(h, " \t\n") || strings.Contains(role, "/") {
		return "", "", fmt.Errorf("%w HAID %q (want haid:{human}.{machine}-{hash4}[/{role}])", ErrInvalid, h)
	}
	return human, role, nil
}

// Detect finds this agent's identity the way heimdall-haid does: human from
// `git config user.email` (its local part) else $USER, machine from
// `hostname -s`, the repository root from git else the working directory.
func Detect() Identity {
	var id Identity
	if out, err := exec.Command("git", "config", "user.email").Output(); err == nil {
		if local, _, _ := strings.Cut(strings.TrimSpace(string(out)), "@"); local != "" {
			id.Human = local
		}
	}
	if id.Human == "" {
		id.Human = os.Getenv("USER")
	}
	if h, err := os.Hostname(); err == nil {
		id.Machine, _, _ = strings.Cut(h, ".")
	}
	if out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output(); err == nil && strings.TrimSpace(string(out)) != "" {
		id.RepoRoot = strings.TrimSpace(string(out))
	} else if wd, err := os.Getwd(); err == nil {
		id.RepoRoot = wd
	}
	return id
}

// Ledger is the ledger/ directory of a planning root.
type Ledger struct {
	dir string
	now func() time.Time
}

// Open returns the ledger of the planning root (planning.DefaultRoot()
// when root is "").
func Open(root string) *Ledger {
	if root == "" {
		root = planning.DefaultRoot()
	}
	return &Ledger{dir: filepath.Join(root, "ledger"), now: time.Now}
}

// Dir is the ledger directory.
func (l *Ledger) Dir() string { return l.dir }

// RegistryPath is the HAID registry: a JSON object keyed by HAID.
func (l *Ledger) RegistryPath() string { return filepath.Join(l.dir, "haid-registry.json") }

func (l *Ledger) stamp() string { return l.now().UTC().Format(time.RFC3339) }

// Agent is one registry entry.
type Agent struct {
	HAID         string `json:"haid"`
	Human        string `json:"human"`
	Role         string `json:"role"`
	Status       string `json:"status"`
	RegisteredAt string `json:"registered_at"`
	LastSeen     string `json:"last_seen"`
}

// readJSON reads path into v; a missing file leaves v as is.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return planning.WriteAtomic(path, append(b, '\n'))
}

// Register records h as active, with role (h's own role when "").
// Registering again refreshes last_seen and keeps registered_at.
func (l *Ledger) Register(h, role string) (Agent, error) {
	human, hrole, err := ParseHAID(h)
	if err != nil {
		return Agent{}, err
	}
	if role == "" {
		role = hrole
	}
	var a Agent
	path := l.RegistryPath()
	err = planning.WithLock(path, func() error {
		reg := map[string]Agent{}
		if err := readJSON(path, &reg); err != nil {
			return err
		}
		now := l.stamp()
		a = reg[h]
		if a.RegisteredAt == "" {
			a.RegisteredAt = now
		}
		a.HAID, a.Human, a.Role, a.Status, a.LastSeen = h, human, role, "active", now
		reg[h] = a
		return writeJSON(path, reg)
	})
	return a, err
}

// Agents lists the registry by HAID.
func (l *Ledger) Agents() ([]Agent, error) {
	reg := map[string]Agent{}
	if err := readJSON(l.RegistryPath(), &reg); err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(reg))
	for _, a := range reg {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].HAID < out[j].HAID })
	return out, nil
}
