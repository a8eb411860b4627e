package natsio

import (
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// serverLog adapts go-hclog to the nats-server Logger interface.
//
// The server's notices and debug lines go to debug level: they describe the
// server's internals, which a wasmstream user does not operate. Warnings and
// errors keep their level because they can explain a pipeline failure.
// Fatal lines are also remembered: nats-server reports a failed listener or
// a JetStream store that cannot start only through Fatalf, and Connect turns
// that into an error instead of waiting for a readiness timeout.
type serverLog struct {
	log hclog.Logger

	mu    sync.Mutex
	fatal string // first Fatalf line
}

func newServerLog(parent hclog.Logger) *serverLog {
	return &serverLog{log: parent.Named("nats-server")}
}

func (l *serverLog) Noticef(format string, v ...any) { l.debug(format, v...) }
func (l *serverLog) Debugf(format string, v ...any)  { l.debug(format, v...) }
func (l *serverLog) Warnf(format string, v ...any)   { l.log.Warn(fmt.Sprintf(format, v...)) }
func (l *serverLog) Errorf(format string, v ...any)  { l.log.Error(fmt.Sprintf(format, v...)) }

func (l *serverLog) Tracef(format string, v ...any) {
	if l.log.IsTrace() {
		l.log.Trace(fmt.Sprintf(format, v...))
	}
}

func (l *serverLog) debug(format string, v ...any) {
	if l.log.IsDebug() {
		l.log.Debug(fmt.Sprintf(format, v...))
	}
}

// Fatalf logs at error level and records the line; it never exits the process.
func (l *serverLog) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.log.Error(msg)
	l.mu.Lock()
	if l.fatal == "" {
		l.fatal = msg
	}
	l.mu.Unlock()
}

// fatalLine returns the first fatal line, or "".
func (l *serverLog) fatalLine() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}
