// Package tokens counts tokens as OpenAI's o200k_base BPE does, for the
// ledger's --text and --file: apart from planning, so that only the
// commands that count link the vocabulary.
package tokens

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// The tokenizer is OpenAI's o200k_base BPE, from tiktoken-go/tokenizer,
// whose vocabulary is compiled into the binary: counting never touches the
// network or the disk. It is built on first use (the vocabulary map takes a
// moment to build), so commands that count nothing do not pay for it.
var (
	codecOnce sync.Once
	codec     tokenizer.Codec
	codecErr  error
)

// Name names the encoding Count uses.
const Name = "o200k_base"

// Count returns the number of o200k_base tokens in text: measured by
// the real BPE, not estimated from its length.
func Count(text string) (int, error) {
	codecOnce.Do(func() {
		codec, codecErr = tokenizer.Get(tokenizer.O200kBase)
	})
	if codecErr != nil {
		return 0, fmt.Errorf("tokenizer %s: %w", Name, codecErr)
	}
	n, err := codec.Count(text)
	if err != nil {
		return 0, fmt.Errorf("count tokens: %w", err)
	}
	return n, nil
}
