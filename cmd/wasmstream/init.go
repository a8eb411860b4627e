package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/scaffold"
)

func newInitCommand() *cobra.Command {
	var lang, dir string
	var force, asJSON bool
	cmd := &cobra.Command{
		Use:   "init --lang go|rust|c|assemblyscript NAME",
		Short: "Create an operator project: operator, unit tests, pipeline, sample events, Makefile, README and a copy of the SDK",
		Long: `Init writes a ready operator project into NAME/ (or --dir): a keyed running total
over JSON records in the chosen language, its unit tests in that language's harness,
a pipeline.hcl that runs it on the embedded JetStream server, events.jsonl, a Makefile
and a README with the commands. The SDK travels inside this binary and is copied into
the project (wasmstream-sdk/), so the project builds and tests offline.

NAME names the project, its pipeline and its operator: a lower-case letter, then
lower-case letters, digits, '-' and '_'. A directory that is not empty is refused
unless --force, which replaces the files init writes and keeps the others.

With --json: {"name", "lang", "dir", "files", "sdk_dir", "sdk_files", "module"}: "files"
are the project's own files (paths relative to "dir"), "sdk_files" the number of files of
the SDK copy in "sdk_dir", "module" the file wasmstream build writes.`,
		Example: `  wasmstream init --lang go payments-total
  wasmstream init --lang rust payments-total --dir ~/src/payments-total
  cd payments-total && wasmstream build && make test`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := scaffold.ParseLang(lang)
			if err != nil {
				return fmt.Errorf("--lang: %w", err)
			}
			o := scaffold.InitOptions{Lang: l, Name: args[0], Dir: dir, Force: force}
			if o.Dir == "" {
				o.Dir = o.Name
			}
			files, err := scaffold.Init(o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), initJSON(o, files))
			}
			printCreated(cmd.OutOrStdout(), o, files)
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", "go", "the operator's language: "+scaffold.LangList())
	cmd.Flags().StringVar(&dir, "dir", "", "the project directory (default ./NAME)")
	cmd.Flags().BoolVar(&force, "force", false, "write into a directory that is not empty, replacing files of the same name")
	addJSONFlag(cmd, &asJSON, "the project created")
	return cmd
}

// initDoc is what init --json prints.
type initDoc struct {
	Name     string   `json:"name"`
	Lang     string   `json:"lang"`
	Dir      string   `json:"dir"`
	Files    []string `json:"files"`
	SDKDir   string   `json:"sdk_dir"`
	SDKFiles int      `json:"sdk_files"`
	Module   string   `json:"module"`
}

// initJSON splits files as printCreated does: the project's own, and
// the SDK copy counted.
func initJSON(o scaffold.InitOptions, files []scaffold.File) initDoc {
	d := initDoc{Name: o.Name, Lang: string(o.Lang), Dir: filepath.Clean(o.Dir), Files: []string{},
		SDKDir: scaffold.SDKDir, Module: scaffold.ModuleName}
	for _, f := range files {
		if strings.HasPrefix(f.Path, scaffold.SDKDir+"/") {
			d.SDKFiles++
			continue
		}
		d.Files = append(d.Files, f.Path)
	}
	return d
}

// printCreated lists the project's own files and the next commands.
func printCreated(w io.Writer, o scaffold.InitOptions, files []scaffold.File) {
	sdkFiles := 0
	fmt.Fprintf(w, "created %s operator %q in %s:\n", o.Lang.Title(), o.Name, o.Dir)
	for _, f := range files {
		if strings.HasPrefix(f.Path, scaffold.SDKDir+"/") {
			sdkFiles++
			continue
		}
		fmt.Fprintf(w, "  %s\n", f.Path)
	}
	fmt.Fprintf(w, "  %s/ (the %s SDK, %d files)\n", scaffold.SDKDir, o.Lang.Title(), sdkFiles)
	fmt.Fprintf(w, "next:\n  cd %s\n", filepath.Clean(o.Dir))
	fmt.Fprintf(w, "  wasmstream build    # writes %s\n", scaffold.ModuleName)
	fmt.Fprintf(w, "  make test           # the operator's unit tests\n")
	fmt.Fprintf(w, "  wasmstream exec %s --input events.jsonl --key-field account\n", scaffold.ModuleName)
	fmt.Fprintf(w, "README.md shows how to run the pipeline, publish the events and read the totals.\n")
}
