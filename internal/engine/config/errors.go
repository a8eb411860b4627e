package config

import "errors"

// ErrInvalid is wrapped by every diagnostic about the content of the config file: syntax, an
// unknown or missing setting, a value out of range, a reference to an undeclared object.
var ErrInvalid = errors.New("invalid pipeline config")

// ErrRead is wrapped by every diagnostic about a file that could not be read: the config file
// itself, an operator's config_file or the argument of file(). The operating system's error is
// wrapped too, so errors.Is(err, fs.ErrNotExist) works.
var ErrRead = errors.New("cannot read file")
