package ship

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/cockroachdb/pebble/v2/record"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/wal"
)

// trimWALs cuts every WAL file of a checkpoint directory to its records.
//
// Pebble recycles WAL files: a new log reuses an old file, whose stale
// tail stays behind the new records until overwritten (readers know it by
// the log number in each chunk header). Checkpoint copies the whole file,
// so without the cut a task checkpoint would carry megabytes of stale
// bytes, different each time, and every upload would be far from
// incremental (measured: a 3.3 MB WAL holding one LogData record). The
// checkpoint's WAL files are copies, not links, so cutting them leaves the
// live DB alone.
func trimWALs(dir string) error {
	logs, err := wal.Scan(wal.Dir{FS: vfs.Default, Dirname: dir})
	if err != nil {
		return err
	}
	for _, ll := range logs {
		if ll.NumSegments() != 1 {
			continue // WAL failover segments: not used by the state store
		}
		_, path := ll.SegmentLocation(0)
		end, err := recordsEnd(ll)
		if err != nil {
			return fmt.Errorf("WAL %s: %w", path, err)
		}
		if err := truncateTo(path, end); err != nil {
			return err
		}
	}
	return nil
}

// recordsEnd returns the offset after the log's last record. Only a clean
// end or the recycled tail (record.ErrUnexpectedEOF: no chunk of this log
// follows) ends the records; damage the reader confirms is an error, as it
// is for Pebble's own replay.
func recordsEnd(ll wal.LogicalLog) (int64, error) {
	r := ll.OpenForRead()
	defer r.Close()
	for {
		_, off, err := r.NextRecord()
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF) || errors.Is(err, record.ErrUnexpectedEOF):
			// At a clean end the reader has moved the offset into
			// PreviousFilesBytes; at a bad chunk it is still Physical.
			return off.PreviousFilesBytes + off.Physical, nil
		default:
			return 0, err
		}
	}
}

// truncateTo shortens path to size when it is longer, durably. A file
// with other links is left alone: Pebble v2.1.7 copies WAL files into a
// checkpoint, and if a later version linked them, cutting one would cut
// the live DB's log.
func truncateTo(path string, size int64) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() <= size || linked(fi) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	return errors.Join(err, f.Sync(), f.Close())
}

// linked reports whether the file has more than one name.
func linked(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 1
}
