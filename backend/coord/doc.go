// Package coord is the coordination ledger of several agents working in one
// repository: HAIDs (heimdall agent IDs) that name exactly which agent
// acted, their registry, and claims on file surfaces with a collision gate.
// Its state lives under the planning root's ledger/ directory, in the files
// the bash implementation (heimdall-haid, heimdall-claim) keeps, written
// atomically under backend/planning's flocks, so several processes can
// share it.
package coord
