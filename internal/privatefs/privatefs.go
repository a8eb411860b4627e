// Package privatefs keeps what the engine writes private to the user it
// runs as (design.md, invariant 9): directories 0700, files 0600, so that
// another local user can neither list a data dir nor read a state value
// out of a table file.
//
// The engine names these modes at every creation it makes itself
// (os.MkdirAll(dir, DirMode), os.OpenFile(name, flags, FileMode)). Pebble
// creates its own files with 0666 and its directories with 0755, less the
// umask; Wrap is the filesystem that makes Pebble's creations private too.
// A process umask would do the same, but the engine is also a library
// (tests, tools) and the umask is the whole process's: explicit modes do
// not depend on it.
//
// Existing directories keep their modes: the engine never loosens or
// tightens a directory it did not create. A data dir that is already open
// to others is reported, not changed (recovery.CheckPrivate).
package privatefs

import (
	"io"
	"os"
	"syscall"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// The modes of what the engine creates under a data dir.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
	// GroupOther holds the permission bits of the group and of others: a
	// private file or directory has none of them.
	GroupOther os.FileMode = 0o077
)

// Wrap returns fs creating private files and directories: MkdirAll creates
// directories without group and other bits whatever perm it is given, and
// every file Create, OpenReadWrite, ReuseForWrite or Lock opens for
// writing loses its group and other bits before it is returned. Links and
// renames keep the inode, so a table file linked into a checkpoint stays
// as private as the live one. Everything else is fs's.
//
// Only the operating system's files have modes: on another filesystem
// (vfs.NewMem) Wrap changes nothing. A new file exists with the process's
// default mode for the moment between its creation and its chmod; the
// 0700 directory it is created in keeps others out of that moment.
func Wrap(fs vfs.FS) vfs.FS {
	if _, ok := fs.(privateFS); ok {
		return fs
	}
	return privateFS{FS: fs}
}

type privateFS struct{ vfs.FS }

// Unwrap returns the wrapped filesystem, for vfs.Root.
func (p privateFS) Unwrap() vfs.FS { return p.FS }

// MkdirAll creates dir and its missing parents with perm less the group
// and other bits.
func (p privateFS) MkdirAll(dir string, perm os.FileMode) error {
	return p.FS.MkdirAll(dir, perm&^GroupOther)
}

func (p privateFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := p.FS.Create(name, category)
	return p.restricted(name, f, err)
}

func (p privateFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	f, err := p.FS.OpenReadWrite(name, category, opts...)
	return p.restricted(name, f, err)
}

func (p privateFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := p.FS.ReuseForWrite(oldname, newname, category)
	return p.restricted(newname, f, err)
}

// Lock restricts the lock file by name: the closer Pebble returns hides
// the descriptor.
func (p privateFS) Lock(name string) (io.Closer, error) {
	c, err := p.FS.Lock(name)
	if err != nil || !p.onOS() {
		return c, err
	}
	if err := restrictPath(name); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// restricted clears the group and other bits of f, a file just opened
// for writing; it closes f when that fails.
func (p privateFS) restricted(name string, f vfs.File, err error) (vfs.File, error) {
	if err != nil || !p.onOS() {
		return f, err
	}
	if fd := f.Fd(); fd != vfs.InvalidFd {
		err = restrictFd(name, int(fd))
	} else {
		err = restrictPath(name)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (p privateFS) onOS() bool { return vfs.Root(p.FS) == vfs.Default }

// restrictFd clears the group and other bits of name, open as fd. It goes
// through the descriptor, so it changes the file that was opened even if
// its name was replaced meanwhile, and it bypasses any fault injector
// between the wrapper and the disk (vfs/errorfs sees no extra operation).
func restrictFd(name string, fd int) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: name, Err: err}
	}
	if mode := os.FileMode(st.Mode).Perm(); mode&GroupOther != 0 {
		if err := syscall.Fchmod(fd, uint32(mode&^GroupOther)); err != nil {
			return &os.PathError{Op: "fchmod", Path: name, Err: err}
		}
	}
	return nil
}

// restrictPath clears the group and other bits of the file name.
func restrictPath(name string) error {
	fi, err := os.Stat(name)
	if err != nil {
		return err
	}
	if mode := fi.Mode().Perm(); mode&GroupOther != 0 {
		return os.Chmod(name, mode&^GroupOther)
	}
	return nil
}
