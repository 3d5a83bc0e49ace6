package planning

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sort"
	"strconv"

	"github.com/heimdall-tui/heimdall-tui/backend/planning/planfile"
)

// LedgerEntry is one line of protocol/ledger.jsonl: the token cost of one
// message or spawn, by role. Tokens were counted by a tokenizer, unless
// the entry has Usage: then they are the provider's own count (a headless
// Claude session's turn, kind "turn"), Tokens their sum.
type LedgerEntry struct {
	TS     string `json:"ts"`
	Role   string `json:"role"`
	Kind   string `json:"kind"`
	Tokens int64  `json:"tokens"`
	MsgID  string `json:"msg_id,omitempty"`
	Usage  *Usage `json:"usage,omitempty"`
}

// Usage is a turn's token usage as the provider reported it.
type Usage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens,omitempty"`
	CacheCreation int64 `json:"cache_creation_input_tokens,omitempty"`
}

// Sum is every token of the usage: input, output and both cache counts.
func (u Usage) Sum() int64 { return u.Input + u.Output + u.CacheRead + u.CacheCreation }

// Ledger is the token ledger: ledger.jsonl (measured costs) and
// baselines.json (the v1 numbers to beat).
type Ledger struct{ s *Store }

// Ledger returns the Store's token ledger.
func (s *Store) Ledger() Ledger { return Ledger{s} }

func (l Ledger) baselines() table[int64] {
	return table[int64]{path: l.s.BaselinesPath(), field: "baselines"}
}

// Log appends e (TS defaults to now) as one whole line under the ledger's
// lock, and logs `ledger log role/kind=tokens` to protocol.log.
func (l Ledger) Log(e LedgerEntry) error {
	if err := checkKey("role", e.Role); err != nil {
		return err
	}
	if err := checkKey("kind", e.Kind); err != nil {
		return err
	}
	if e.Tokens < 0 {
		return invalidf("negative token count %d", e.Tokens)
	}
	if u := e.Usage; u != nil && (u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheCreation < 0) {
		return invalidf("negative usage %+v", *u)
	}
	if e.TS == "" {
		e.TS = l.s.timestamp()
	}
	b, err := marshal(e)
	if err != nil {
		return fmt.Errorf("encode ledger entry: %w", err)
	}
	if err := appendLine(l.s.LedgerPath(), append(b, '\n')); err != nil {
		return err
	}
	return l.s.Log("ledger", "log", fmt.Sprintf("%s/%s=%d", e.Role, e.Kind, e.Tokens))
}

// SetBaseline records the v1 token count to beat for role.
func (l Ledger) SetBaseline(role string, tokens int64) error {
	if err := checkKey("role", role); err != nil {
		return err
	}
	if tokens < 0 {
		return invalidf("negative baseline %d", tokens)
	}
	if _, err := l.baselines().update(nil, func(m map[string]int64) (bool, error) {
		m[role] = tokens
		return true, nil
	}); err != nil {
		return err
	}
	return l.s.Log("ledger", "baseline", fmt.Sprintf("%s=%d", role, tokens))
}

// Baselines returns the recorded baselines by role.
func (l Ledger) Baselines() (map[string]int64, error) {
	m, _, err := l.baselines().load()
	return m, err
}

// Delta is a role's measured cost against its v1 baseline.
type Delta struct {
	Role               string
	Baseline, Measured int64
}

// Percent is the change from the baseline to the measured cost, rounded to
// the nearest whole percent (half away from zero): -73 for 41000 → 11250.
func (d Delta) Percent() int {
	if d.Baseline == 0 {
		return 0
	}
	return int(math.Round(float64(d.Measured-d.Baseline) * 100 / float64(d.Baseline)))
}

func (d Delta) pct() string {
	p := d.Percent()
	if p > 0 {
		return "+" + strconv.Itoa(p) + "%"
	}
	return strconv.Itoa(p) + "%"
}

// String is the `ledger delta` line:
// "orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)".
func (d Delta) String() string {
	return fmt.Sprintf("%s: %d -> %d tokens (v1 baseline -> measured; %s)", d.Role, d.Baseline, d.Measured, d.pct())
}

// Short is the demo's form: "orchestration: 41000 -> 11250 tokens (-73%)".
func (d Delta) Short() string {
	return fmt.Sprintf("%s: %d -> %d tokens (%s)", d.Role, d.Baseline, d.Measured, d.pct())
}

// Delta computes role's delta: its baseline against the sum of its ledger
// entries. A role without a baseline, or with a zero baseline, is
// ErrNotFound / ErrInvalid.
func (l Ledger) Delta(role string) (Delta, error) {
	r, err := l.Report(0)
	if err != nil {
		return Delta{}, err
	}
	for _, rr := range r.Roles {
		if rr.Role != role || !rr.HasBaseline {
			continue
		}
		if rr.Baseline == 0 {
			return Delta{}, fmt.Errorf("baseline of role %q is 0: %w", role, ErrInvalid)
		}
		return rr.Delta(), nil
	}
	return Delta{}, fmt.Errorf("no baseline for role %q (set one with ledger baseline): %w", role, ErrNotFound)
}

// RoleReport is one role's line of a LedgerReport.
type RoleReport struct {
	Role    string
	Tokens  int64 // sum of the role's entries
	Entries int   // number of entries
	// Baseline is the role's v1 baseline, if HasBaseline.
	Baseline    int64
	HasBaseline bool
}

// Delta is the role's baseline against its measured tokens (meaningful
// when HasBaseline).
func (r RoleReport) Delta() Delta {
	return Delta{Role: r.Role, Baseline: r.Baseline, Measured: r.Tokens}
}

// LedgerReport is what the ledger view and `ledger report` show: per-role
// totals with baselines and deltas (roles sorted by name; a role with a
// baseline but no entries is included with Tokens 0), the grand total, and
// the latest entries, oldest first.
type LedgerReport struct {
	Roles   []RoleReport
	Total   int64
	Entries int
	Latest  []LedgerEntry
}

// Report reads the whole ledger and the baselines and returns the totals
// and the last `latest` entries. A final line without its newline (being
// written, or torn by a crashed writer) is ignored; any complete line that
// is not a ledger entry is an error naming the file and line.
func (l Ledger) Report(latest int) (LedgerReport, error) {
	base, err := l.Baselines()
	if err != nil {
		return LedgerReport{}, err
	}
	path := l.s.LedgerPath()
	byRole := map[string]*RoleReport{}
	var rep LedgerReport
	// The latest lines are kept raw (a ring of copies) and decoded at the
	// end, so a long ledger costs one light parse a line.
	type raw struct {
		line []byte
		no   int
	}
	var ring []raw
	next := 0
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return LedgerReport{}, fmt.Errorf("read %s: %w", path, err)
	default:
		defer f.Close()
		r := bufio.NewReaderSize(f, 256<<10)
		var e ledgerLine
		for lineNo := 1; ; lineNo++ {
			line, err := r.ReadSlice('\n')
			if err == bufio.ErrBufferFull {
				// A line longer than the buffer: collect it whole.
				full := append([]byte(nil), line...)
				for err == bufio.ErrBufferFull {
					line, err = r.ReadSlice('\n')
					full = append(full, line...)
				}
				line = full
			}
			if err != nil {
				// EOF: whatever is left has no newline — a line being
				// written or torn by a crash — and is ignored.
				break
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if perr := e.parse(line); perr != nil {
				return LedgerReport{}, corruptf(path, lineNo, "%v", perr)
			}
			rr := byRole[string(e.role)]
			if rr == nil {
				role := string(e.role)
				rr = &RoleReport{Role: role}
				byRole[role] = rr
			}
			rr.Tokens += e.tokens
			rr.Entries++
			rep.Total += e.tokens
			rep.Entries++
			if latest > 0 {
				if len(ring) < latest {
					ring = append(ring, raw{append([]byte(nil), line...), lineNo})
				} else {
					ring[next] = raw{append(ring[next].line[:0], line...), lineNo}
					next = (next + 1) % latest
				}
			}
		}
	}
	for role := range base {
		if byRole[role] == nil {
			byRole[role] = &RoleReport{Role: role}
		}
	}
	for _, rr := range byRole {
		if b, ok := base[rr.Role]; ok {
			rr.Baseline, rr.HasBaseline = b, true
		}
		rep.Roles = append(rep.Roles, *rr)
	}
	sort.Slice(rep.Roles, func(i, j int) bool { return rep.Roles[i].Role < rep.Roles[j].Role })
	for i := range ring {
		r := ring[(next+i)%len(ring)]
		var le LedgerEntry
		if err := json.Unmarshal(r.line, &le); err != nil {
			return LedgerReport{}, corruptf(path, r.no, "%v", err)
		}
		rep.Latest = append(rep.Latest, le)
	}
	return rep, nil
}

// ledgerLine holds what the totals need from one line.
type ledgerLine struct {
	role   []byte
	tokens int64
}

var ledgerFieldsErr = errors.New(`want an object with string "role" and integer "tokens"`)

func (e *ledgerLine) parse(line []byte) error {
	if role, tokens, ok := planfile.FastLedgerLine(line); ok {
		e.role = append(e.role[:0], role...)
		e.tokens = tokens
		return nil
	}
	var v struct {
		Role   *string      `json:"role"`
		Tokens *json.Number `json:"tokens"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return err
	}
	if v.Role == nil || v.Tokens == nil {
		return ledgerFieldsErr
	}
	n, err := v.Tokens.Int64()
	if err != nil {
		return ledgerFieldsErr
	}
	e.role = append(e.role[:0], *v.Role...)
	e.tokens = n
	return nil
}
