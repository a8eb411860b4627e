package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/wasmstream/wasmstream/internal/cluster/clusterckpt"
	"github.com/wasmstream/wasmstream/internal/engine/config"
)

// clusterVerifyResult is the outcome for one cluster checkpoint; Tasks
// and Bytes are what was checked when it passed.
type clusterVerifyResult struct {
	ID    uint64 `json:"id"`
	OK    bool   `json:"ok"`
	Tasks int    `json:"task_checkpoints,omitempty"`
	Bytes int64  `json:"bytes,omitempty"`
	Error string `json:"error,omitempty"`
}

// verifyCluster verifies cluster checkpoint rest[0], every one (--all) or
// the latest.
func verifyCluster(cmd *cobra.Command, f *verifyFlags, cfg *config.Pipeline, rest []string) error {
	out := cmd.OutOrStdout()
	s, err := openCluster(cmd, cfg)
	if errors.Is(err, clusterckpt.ErrNoCheckpoint) {
		return nothingToVerify(out, f.json, err)
	}
	if err != nil {
		return err
	}
	defer s.close()
	ids, err := clusterVerifyTargets(s, f.all, rest)
	if errors.Is(err, clusterckpt.ErrNoCheckpoint) {
		return nothingToVerify(out, f.json, err)
	}
	if err != nil {
		return err
	}
	results := make([]clusterVerifyResult, 0, len(ids))
	for _, id := range ids {
		r := verifyClusterOne(s, id)
		results = append(results, r)
		if !f.json {
			writeClusterVerifyResult(out, r)
		}
	}
	if f.json {
		if err := writeJSON(out, results); err != nil {
			return err
		}
	}
	return clusterVerifyOutcome(cfg.Name, results, f.all)
}

// nothingToVerify reports that no cluster checkpoint completed yet; like
// an empty data dir, that is no failure.
func nothingToVerify(out io.Writer, asJSON bool, why error) error {
	if asJSON {
		return writeJSON(out, []clusterVerifyResult{})
	}
	fmt.Fprintln(out, why)
	return nil
}

// clusterVerifyTargets returns the requested id (which must have
// completed), every completed id, or the latest.
func clusterVerifyTargets(s *clusterSession, all bool, rest []string) ([]uint64, error) {
	if all {
		return allVerifiable(s)
	}
	var id uint64
	if len(rest) > 0 {
		var err error
		if id, err = parseCheckpointID(rest[0]); err != nil {
			return nil, err
		}
	}
	rec, err := s.Record(s.ctx, id)
	if err != nil {
		return nil, err
	}
	return []uint64{rec.Checkpoint}, nil
}

// allVerifiable returns every completed checkpoint whose objects retention
// did not remove, newest first.
func allVerifiable(s *clusterSession) ([]uint64, error) {
	list, err := s.List(s.ctx)
	if err == nil && len(list) == 0 {
		_, err = s.Latest(s.ctx) // says why there are none
	}
	var ids []uint64
	for _, c := range list {
		if !c.Collected {
			ids = append(ids, c.ID())
		}
	}
	return ids, err
}

// verifyClusterOne verifies every object of cluster checkpoint id.
func verifyClusterOne(s *clusterSession, id uint64) clusterVerifyResult {
	rec, err := s.Record(s.ctx, id)
	if err != nil {
		return clusterVerifyResult{ID: id, Error: err.Error()}
	}
	m, err := s.Verify(s.ctx, rec)
	if err != nil {
		return clusterVerifyResult{ID: rec.Checkpoint, Error: err.Error()}
	}
	return clusterVerifyResult{ID: rec.Checkpoint, OK: true, Tasks: clusterckpt.TaskCheckpoints(m), Bytes: m.Checkpoint.Metrics.BytesTotal}
}

// writeClusterVerifyResult prints one result; each line of a joined error
// (one per bad object) on its own indented line.
func writeClusterVerifyResult(out io.Writer, r clusterVerifyResult) {
	if r.OK {
		fmt.Fprintf(out, "cluster checkpoint %d: ok (%d task checkpoints, %d bytes, every object verified)\n", r.ID, r.Tasks, r.Bytes)
		return
	}
	fmt.Fprintf(out, "cluster checkpoint %d: FAILED\n", r.ID)
	writeIndented(out, r.Error)
}

// clusterVerifyOutcome turns failures into the command's error, naming
// them and the checkpoints that passed.
func clusterVerifyOutcome(pipeline string, results []clusterVerifyResult, all bool) error {
	passed, failed := passedAndFailed(results, func(r clusterVerifyResult) (uint64, bool) { return r.ID, r.OK })
	if len(failed) == 0 {
		return nil
	}
	advice := "no cluster checkpoint passed: check the Object Store's servers; starting from empty state is an explicit choice"
	switch {
	case !all:
		advice = "a restore refuses it; run verify --all to find one that passes"
	case len(passed) > 0:
		advice = fmt.Sprintf("a restore refuses them; one that passed (%s) can be saved with: wasmstream savepoint create PIPELINE.hcl --checkpoint ID",
			joinIDs(passed))
	}
	return fmt.Errorf("%w: %d of %d cluster checkpoint(s) of pipeline %q failed (%s); %s",
		errVerifyFailed, len(failed), len(results), pipeline, joinIDs(failed), advice)
}
