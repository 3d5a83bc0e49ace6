// Package shell quotes words for a POSIX shell, for the command lines
// heimdall writes for one to run (a hook's command, ssh's remote command).
package shell

import "strings"

// Quote quotes s as one word: in single quotes, each ' as '\”.
func Quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
