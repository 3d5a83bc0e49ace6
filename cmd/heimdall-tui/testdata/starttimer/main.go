// Command starttimer times whole process runs for BenchmarkStartCost
// (cmd/heimdall-tui/startcost_bench_test.go), from a process of its own.
//
// The runs are not timed from the test binary itself: its TestMain makes
// it a child subreaper that, on every SIGCHLD, lists its children from
// /proc, and that scan, the test binary's threads and its garbage collector
// run beside each timed child on a 2-CPU machine (the benchmark's file has
// the figures).
//
//	starttimer RUNS STDIN BIN... -- ARG...
//
// runs each BIN RUNS times with ARGs and this process's environment,
// interleaved: each round runs every binary once, in an order shuffled for
// the round, because a fixed order (even rotated) has each binary always
// run right after the same other one, which skews its times. Stdin is the
// file STDIN ("" for /dev/null); stdout and stderr go to /dev/null. It
// prints one line per run, in the order they ran: the BIN's index, its
// wall time (start to reaped) and its CPU time (user + system) in
// nanoseconds. A run that fails stops it: exit 1, with the binary, the
// error and that run repeated with its output shown on stderr.
package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"
)

func main() {
	sep := slices.Index(os.Args, "--")
	if len(os.Args) < 4 || sep < 4 {
		fmt.Fprintln(os.Stderr, "usage: starttimer RUNS STDIN BIN... -- ARG...")
		os.Exit(2)
	}
	runs, err := strconv.Atoi(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "starttimer: RUNS:", err)
		os.Exit(2)
	}
	stdin, bins, args := os.Args[2], os.Args[3:sep], os.Args[sep+1:]
	out := bufio.NewWriter(os.Stdout)
	order := rand.New(rand.NewPCG(1, 2)) // the same orders every time
	for range runs {
		for _, k := range order.Perm(len(bins)) {
			wall, cpu, err := run(bins[k], args, stdin, nil)
			if err != nil {
				fmt.Fprintf(os.Stderr, "starttimer: %s %q: %v; run again:\n", bins[k], args, err)
				run(bins[k], args, stdin, os.Stderr)
				os.Exit(1)
			}
			fmt.Fprintln(out, k, wall.Nanoseconds(), cpu.Nanoseconds())
		}
	}
	if out.Flush() != nil {
		os.Exit(2)
	}
}

// run runs bin once with args, stdin from the file stdin (""; /dev/null)
// and its output to out (nil: /dev/null), and returns its wall and CPU
// time.
func run(bin string, args []string, stdin string, out *os.File) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}
