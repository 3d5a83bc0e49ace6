// Command hello is a Go hello world: the floor of a whole Go process's
// start, which BenchmarkStartCost times beside heimdall's.
package main

import "fmt"

func main() { fmt.Println("hello, world") }
