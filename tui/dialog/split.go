package dialog

import (
	"errors"
	"strings"
)

// SplitCommand splits a command line into words the way a POSIX shell
// quotes, without any expansion: blanks separate words; '…' is literal;
// "…" is literal except \" \\ \$ and \` (a backslash before anything else
// stays); a backslash outside quotes takes the next character literally.
// "" and ” make an empty word. An unclosed quote or a trailing backslash
// is an error.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 >= len(rs) {
				return nil, errors.New("trailing backslash")
			}
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j >= len(rs) {
				return nil, errors.New("unclosed ' quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
			inWord = true
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, errors.New("unclosed \" quote")
			}
			i = j
			inWord = true
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
