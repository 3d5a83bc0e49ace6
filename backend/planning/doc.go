// Package planning is the token-frugal protocol 2.0.0 over the .planning/
// tree: the symbol table, context capsules, delta briefs, the blackboard,
// the token ledger, typed-message validation, the gate adapter and the
// audit log. The CLI (heimdall-tui validate, resolve, capsule, brief,
// blackboard, ledger, gate, protocol; also reachable as heimdall-resolve
// etc.) is a thin layer over it, and the dashboard's ledger and blackboard views
// read it directly.
//
// # Files
//
// The files are exactly those of the bash implementation, so its scripts
// and other tools keep reading them:
//
//	ROOT/protocol.log                 ts<TAB>actor<TAB>action<TAB>detail, append-only
//	ROOT/blackboard.json              {"version":"2.0.0","facts":{key:value}}
//	ROOT/protocol/symbols.json        {"version":"2.0.0","symbols":{id:value}}
//	ROOT/protocol/baselines.json      {"version":"2.0.0","baselines":{role:int}}
//	ROOT/protocol/ledger.jsonl        {"ts","role","kind","tokens"[,"msg_id"][,"usage"]} a line
//	ROOT/protocol/message-schema.json the message contract (draft-07), by Init
//	ROOT/protocol/capsules/<id>.md    ≤10-line capsules
//
// ROOT is $HEIMDALL_PLANNING_DIR, else ./.planning (DefaultRoot).
//
// # Concurrency
//
// Agents run the commands in parallel, and the dashboard edits the same
// files. Every write takes an exclusive flock on a hidden lock file next to
// the file it changes (.blackboard.json.lock, ...). JSON state is read,
// changed and rewritten under that lock, through a temp file and a rename,
// so no update is lost and a reader (which takes no lock) sees the old or
// the new file, never a torn one. Appends (ledger.jsonl, protocol.log) are
// one write of one whole line under the lock, so bytes after a file's last
// newline are a line being written or the torn record of a writer that
// crashed. Readers (Report, Tail, the dashboard's views) ignore such an
// unterminated last line. An appender, holding the lock (so none of our
// writes can be in progress), cuts it off, truncating the file to just after its last
// newline, before it appends its own line: the fragment never becomes a
// complete line, and no complete line is ever lost (a tail that grows
// meanwhile belongs to a writer outside the lock, such as a shell's >>,
// and is ended with a newline instead of cut). A complete line that
// does not parse is foreign data, never skipped: an error naming the file
// and line. Files are not fsynced: the guarantees hold against concurrent
// processes and crashed processes, not against a power loss mid-write. A
// state file that does not parse, or that is stamped with another protocol
// version, is an error naming the file (*FileError wrapping ErrCorrupt or
// ErrVersion).
//
// # For views
//
// The dashboard holds a Live (NewLive): the calls below behind one small
// API (LedgerReport, Facts/SetFact/DeleteFact, CapsuleIDs/Hydrate) and
// NextChange, which blocks until Watch reports a change. Underneath, the
// same calls as the CLI:
//
//   - Ledger view: Store.Ledger().Report(n) returns a LedgerReport: per-role
//     totals (RoleReport: Tokens, Entries, Baseline/HasBaseline and its
//     Delta() with Percent()), the grand total and the latest n entries.
//   - Blackboard editor: Store.Blackboard().Load() returns the facts and
//     their Version (a hash of the file). Edits go through SetIf(key,
//     value, version) and DeleteIf(key, version), which refuse with a
//     *ConflictError (errors.Is(err, ErrConflict)) if the file changed since
//     that Version, instead of overwriting the other writer's change.
//   - Watching: Store.Watch(ctx, debounce, fn) runs an fsnotify watch and
//     calls fn with the Changes (a set of FileKinds: KindLedger,
//     KindBlackboard, ...) coalesced over debounce — a view turns that into
//     a reload message. It watches directories, since files are replaced
//     by rename, and picks up a root created after it started. For a
//     watcher of one's own, Store.WatchDirs() lists the directories and
//     Store.Classify(path) maps an event's path to its FileKind (lock and
//     temp files are KindOther).
//   - Capsule browser: Store.Capsules().List() and Hydrate(id) (the
//     closure, dependencies first).
//
// # Errors
//
// ErrNotFound (unknown id, key, capsule, role), ErrInvalid (a bad argument,
// an invalid message, a capsule over the cap, a cycle), ErrConflict,
// ErrCorrupt, ErrVersion; anything else is an I/O error, wrapped with the
// operation and path.
package planning
