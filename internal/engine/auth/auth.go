// Package auth keeps the nkey users of a pipeline's embedded NATS server
// in its data directory: <data_dir>/auth/control.nk and data.nk, nkey
// user seeds created 0600 in a 0700 directory at the first start. Only
// someone who can read the data directory (its owner) can connect:
//
//   - control: every right. The pipeline itself and the verbs that change
//     or steer it (operator push/rm, upgrade, checkpoints trigger,
//     savepoint) connect as control.
//   - data: publish into the pipeline's source subjects and read its
//     streams, nothing else. publish and read connect as data, and
//     data.nk can be handed to a producer without granting code
//     replacement or checkpoint control.
//
// An external server (server.url) keeps whatever auth its owner set up.
package auth

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nats-io/nkeys"
)

// Role names one of a pipeline's two users.
type Role string

// The roles a client connects as.
const (
	Control Role = "control"
	Data    Role = "data"
)

// Roles lists every role, control first.
var Roles = []Role{Control, Data}

// ErrCredentials: a seed is missing, unreadable, not a user seed or open
// to other local users.
var ErrCredentials = errors.New("embedded server credentials")

const (
	dirName  = "auth"
	dirMode  = 0o700
	seedMode = 0o600
)

// Dir is where the seeds of the pipeline whose data dir is dataDir live.
func Dir(dataDir string) string { return filepath.Join(dataDir, dirName) }

// SeedFile is the nkey seed file of role: the file `nats --nkey` takes.
func SeedFile(dataDir string, r Role) string {
	return filepath.Join(Dir(dataDir), string(r)+".nk")
}

// Ensure creates every missing seed of dataDir's pipeline (and the data
// dir and auth dir, private). Seeds that exist are kept: clients hold
// them. Two processes racing here keep the first seed written.
func Ensure(dataDir string) error {
	if err := os.MkdirAll(Dir(dataDir), dirMode); err != nil {
		return fmt.Errorf("%w: %w", ErrCredentials, err)
	}
	for _, r := range Roles {
		if err := createSeed(SeedFile(dataDir, r)); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrCredentials, SeedFile(dataDir, r), err)
		}
	}
	return nil
}

// createSeed writes a new user seed to path unless path exists. The seed
// goes to a private temporary file first and is linked into place, so a
// reader never sees half a seed and a concurrent writer never loses.
func createSeed(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		return err
	}
	seed, err := kp.Seed()
	if err != nil {
		return err
	}
	tmp, err := writePrivateTemp(filepath.Dir(path), append(seed, '\n'))
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return nil
}

func writePrivateTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, ".seed-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	err = errors.Join(f.Chmod(seedMode), write(f, data), f.Sync(), f.Close())
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

func write(f *os.File, data []byte) error {
	_, err := f.Write(data)
	return err
}

// PublicKey reads role's seed and returns its public key, refusing a seed
// that other local users could read.
func PublicKey(dataDir string, r Role) (string, error) {
	path := SeedFile(dataDir, r)
	kp, err := load(path)
	if err != nil {
		return "", err
	}
	defer kp.Wipe()
	pub, err := kp.PublicKey()
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrCredentials, path, err)
	}
	return pub, nil
}

// CheckSeed reports whether role's seed exists, is private and holds a
// user seed: what a client checks before it offers it to a server.
func CheckSeed(dataDir string, r Role) error {
	_, err := PublicKey(dataDir, r)
	return err
}

func load(path string) (nkeys.KeyPair, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist; the pipeline's embedded server creates it at its first start (wasmstream run)", ErrCredentials, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCredentials, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s is open to other local users (mode %04o): anyone who read it can connect to the pipeline's server; "+
			"delete %s and restart the pipeline to get new keys (clients that hold the old ones must fetch the new)",
			ErrCredentials, path, fi.Mode().Perm(), filepath.Dir(path))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCredentials, err)
	}
	kp, err := nkeys.ParseDecoratedNKey(bytes.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not an nkey seed: %w", ErrCredentials, path, err)
	}
	return userKey(path, kp)
}

func userKey(path string, kp nkeys.KeyPair) (nkeys.KeyPair, error) {
	pub, err := kp.PublicKey()
	if err != nil || !nkeys.IsValidPublicUserKey(pub) {
		kp.Wipe()
		return nil, fmt.Errorf("%w: %s does not hold a user seed (it starts with SU)", ErrCredentials, path)
	}
	return kp, nil
}
