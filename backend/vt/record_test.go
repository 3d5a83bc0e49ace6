package vt

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// recordFlag enables TestRecord, which (re)creates the testdata/*.rec
// recordings replayed by TestOracleTmux:
//
//	go test ./backend/vt -run TestRecord -record
var recordFlag = flag.Bool("record", false, "record testdata/*.rec from real programs in a pty")
var recordOnly = flag.String("record-only", "", "with -record: re-record only the named recording")

const recCols, recRows = 80, 24

// recStep is one scripted action: wait, then type keys.
type recStep struct {
	wait time.Duration
	keys string
}

type recording struct {
	name  string
	argv  []string
	steps []recStep
	// kill: stop recording after the last step (the program is still
	// running, so its final screen is what gets compared); otherwise wait
	// for the program to exit.
	kill bool
}

const colorsScript = `
printf '\e[0mplain \e[1mbold\e[0m \e[3mitalic\e[0m \e[4munder\e[0m \e[7mreverse\e[0m \e[1;4;7mall\e[0m\n'
for i in 0 1 2 3 4 5 6 7; do printf '\e[3%dm fg%d \e[0m' $i $i; done; printf '\n'
for i in 0 1 2 3 4 5 6 7; do printf '\e[9%dm br%d \e[0m' $i $i; done; printf '\n'
for i in 0 1 2 3 4 5 6 7; do printf '\e[4%dm bg%d \e[0m' $i $i; done; printf '\n'
for i in 0 1 2 3 4 5 6 7; do printf '\e[10%dm bb%d \e[0m' $i $i; done; printf '\n'
for r in 0 1 2 3 4 5 6 7; do
  for c in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31; do
    n=$((r*32+c)); printf '\e[48;5;%dm \e[38;5;%dm#' $n $((255-n))
  done
  printf '\e[0m\n'
done
for i in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
  printf '\e[38;2;%d;%d;%dm\e[48;2;%d;%d;%dmT' $((i*12)) $((255-i*12)) 100 10 $((i*10)) 200
done
printf '\e[0m\n'
printf '\e[1;31;42mbold red on green\e[22m not bold\e[24;4m ul\e[27;7m rev\e[39m deffg\e[49m defbg\e[m\n'
printf '\e[38;5;196;48;5;21;1;3mmixed 256\e[m \e[38:2::255:128:0mcolon rgb\e[m\n'
printf '\e[44mbce line\e[K\e[m\n'
printf 'end\n'
`

const scrollScript = `
printf '\e[H\e[2J'
i=1; while [ $i -le 24 ]; do printf 'line %02d\r\n' $i; i=$((i+1)); done
printf '\e[5;15r'
printf '\e[15;1H'
i=1; while [ $i -le 6 ]; do printf '\nscrolled %d' $i; i=$((i+1)); done
printf '\e[5;1H\eMrev-indexed'
printf '\e[7;1H\e[2Linserted two\e[10;1H\e[1Mdeleted one'
printf '\e[3S\e[12;1Hafter SU3\e[2T\e[6;3Hafter SD2'
printf '\e[r\e[24;1H\nafter reset\n'
printf '\e[2;22r\e[?6h\e[1;1Horigin-home\e[?6l\e[r'
printf '\e[20;10H\e[1;33mX\e[0m\e[20;1H\e[4@\e[2P'
printf '\e[23;1H'
`

const cjkText = `CJK wide characters for less:
日本語のテキスト、漢字とかな。
中文字符测试：你好，世界！
한국어 텍스트 테스트입니다
mixed ascii 和 全角ＡＢＣ and half
`

func recordings(dir string) []recording {
	var cjk strings.Builder
	for i := 1; i <= 60; i++ {
		cjk.WriteString(strings.SplitN(cjkText, "\n", 6)[i%5])
		cjk.WriteString(" #")
		cjk.WriteString(strings.Repeat("字", i%30))
		cjk.WriteString("\n")
	}
	cjkFile := filepath.Join(dir, "cjk.txt")
	os.WriteFile(cjkFile, []byte(cjk.String()), 0o644)
	viFile := filepath.Join(dir, "edit.txt")
	os.WriteFile(viFile, []byte("first line\nsecond line\n\tindented with tab\nlast\n"), 0o644)

	// A Bubble Tea v2 program: its own module under testdata (so the main
	// module does not depend on it), built only when recording.
	demo := filepath.Join(dir, "bubbledemo")
	build := exec.Command("go", "build", "-o", demo, ".")
	build.Dir = filepath.Join("testdata", "bubbledemo")
	if out, err := build.CombinedOutput(); err != nil {
		panic(fmt.Sprintf("build bubbledemo: %v\n%s", err, out))
	}

	return []recording{
		{name: "bubbletea", argv: []string{demo}, kill: true, steps: []recStep{
			{1000 * time.Millisecond, ""},
			{200 * time.Millisecond, "j"},
			{200 * time.Millisecond, "j"},
			{200 * time.Millisecond, " "},
			{200 * time.Millisecond, " "},
			{200 * time.Millisecond, "k"},
			{500 * time.Millisecond, ""},
		}},
		{name: "colors", argv: []string{"bash", "--norc", "--noprofile", "-c", colorsScript}},
		{name: "scroll", argv: []string{"sh", "-c", scrollScript}},
		{name: "less_cjk", argv: []string{"less", cjkFile}, kill: true, steps: []recStep{
			{500 * time.Millisecond, ""},
			{300 * time.Millisecond, " "},
			{300 * time.Millisecond, "j"},
			{300 * time.Millisecond, "j"},
			{300 * time.Millisecond, "/字字\r"},
			{500 * time.Millisecond, ""},
		}},
		{name: "vim", argv: []string{"vim", "-u", "NONE", "-i", "NONE", "-N", "-n", viFile}, kill: true, steps: []recStep{
			{800 * time.Millisecond, ""},
			{200 * time.Millisecond, ":syntax on\r:set nu\r"},
			{200 * time.Millisecond, "jA appended\x1b"},
			{200 * time.Millisecond, "Onew line above 日本\x1b"},
			{200 * time.Millisecond, "GoA\rB\rC\x1b"},
			{200 * time.Millisecond, "ggdd"},
			{200 * time.Millisecond, "/line\r"},
			{200 * time.Millisecond, ":set hlsearch\r"},
			{500 * time.Millisecond, ""},
		}},
		{name: "top", argv: []string{"top", "-d", "1"}, steps: []recStep{
			{2500 * time.Millisecond, ""},
			{100 * time.Millisecond, "q"},
		}},
	}
}

func TestRecord(t *testing.T) {
	if !*recordFlag {
		t.Skip("run with -record to (re)create testdata/*.rec")
	}
	dir := t.TempDir()
	home := t.TempDir()
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range recordings(dir) {
		if *recordOnly != "" && r.name != *recordOnly {
			continue
		}
		t.Run(r.name, func(t *testing.T) {
			out := record(t, r, home)
			if len(out) > 200<<10 {
				t.Fatalf("%s: %d bytes, too big", r.name, len(out))
			}
			if err := os.WriteFile(filepath.Join("testdata", r.name+".rec"), out, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d bytes", r.name, len(out))
		})
	}
}

func record(t *testing.T, r recording, home string) []byte {
	cmd := exec.Command(r.argv[0], r.argv[1:]...)
	cmd.Dir = filepath.Dir(home)
	cmd.Env = []string{
		"TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8",
		"HOME=" + home, "PATH=/usr/bin:/bin", "LESSHISTFILE=-",
		"COLUMNS=80", "LINES=24",
	}
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: recCols, Rows: recRows})
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var mu sync.Mutex
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := ptmx.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	for _, s := range r.steps {
		time.Sleep(s.wait)
		if s.keys != "" {
			ptmx.Write([]byte(s.keys))
		}
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	if r.kill {
		mu.Lock()
		out := bytes.Clone(buf.Bytes())
		mu.Unlock()
		cmd.Process.Kill()
		<-exited
		return out
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Errorf("%s did not exit", r.name)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	return bytes.Clone(buf.Bytes())
}
