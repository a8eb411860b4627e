//go:build !wasip1

package wasmstream_test

import (
	"reflect"
	"testing"

	wasmstream "github.com/wasmstream/wasmstream/sdk/go"
	"github.com/wasmstream/wasmstream/sdk/go/sdktest"
)

func TestLogLevels(t *testing.T) {
	h := harness(t, sdktest.Options{}, func(*wasmstream.Record) error {
		wasmstream.Log(wasmstream.LevelTrace, "t")
		wasmstream.Debugf("d %d", 1)
		wasmstream.Infof("i %s", "x")
		wasmstream.Warnf("w")
		wasmstream.Errorf("e")
		wasmstream.Log(wasmstream.Level(99), "unknown high")
		wasmstream.Log(wasmstream.Level(-5), "unknown low")
		return nil
	})
	res := mustProcess(t, h, rec("k", ""))
	want := []sdktest.LogLine{
		{Level: wasmstream.LevelTrace, Msg: "t"},
		{Level: wasmstream.LevelDebug, Msg: "d 1"},
		{Level: wasmstream.LevelInfo, Msg: "i x"},
		{Level: wasmstream.LevelWarn, Msg: "w"},
		{Level: wasmstream.LevelError, Msg: "e"},
		{Level: wasmstream.LevelError, Msg: "unknown high"},
		{Level: wasmstream.LevelError, Msg: "unknown low"},
	}
	if !reflect.DeepEqual(res.Logs, want) {
		t.Fatalf("logs %+v\nwant %+v", res.Logs, want)
	}
}

func TestLevelString(t *testing.T) {
	for l, want := range map[wasmstream.Level]string{
		wasmstream.LevelTrace: "trace", wasmstream.LevelDebug: "debug", wasmstream.LevelInfo: "info",
		wasmstream.LevelWarn: "warn", wasmstream.LevelError: "error", 42: "error", -1: "error",
	} {
		if got := l.String(); got != want {
			t.Errorf("Level(%d).String() = %q, want %q", l, got, want)
		}
	}
}
