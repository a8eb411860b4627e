// Command wasmshape writes an operator module of a chosen shape (see
// package wasmgen), for scripts/bench-module-shapes.sh:
//
//	go run ./internal/wasmgen/wasmshape -functions 99996 -o many.wasm
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/wasmstream/wasmstream/internal/wasmgen"
)

func main() {
	var s wasmgen.Shape
	out := flag.String("o", "", "output file (required)")
	flag.IntVar(&s.Functions, "functions", 0, "filler functions")
	flag.IntVar(&s.Locals, "locals", 0, "i32 locals per filler function")
	flag.IntVar(&s.BodyBytes, "body", 0, "code bytes per filler function")
	flag.StringVar(&s.Code, "code", wasmgen.CodeCalls, "what the code repeats: calls, drops or stores")
	flag.IntVar(&s.Types, "types", 0, "extra function types")
	flag.IntVar(&s.Globals, "globals", 0, "i32 globals")
	flag.IntVar(&s.DataSegments, "data", 0, "empty passive data segments")
	flag.IntVar(&s.TableMin, "table-min", -1, "add a table of this many elements")
	flag.IntVar(&s.TableMax, "table-max", -1, "the table's declared maximum (none when negative)")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if s.TableMin >= 0 {
		s.Table = true
	}
	if err := os.WriteFile(*out, wasmgen.Module(s), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
