package natsio

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateBatch(t *testing.T) {
	ok := outMsgs("out.x", "e", 3)
	tests := []struct {
		name string
		id   string
		msgs []OutMessage
		want error
	}{
		{"valid", "b-1", ok, nil},
		{"empty id", "", ok, ErrInvalidBatch},
		{"id too long", strings.Repeat("x", MaxBatchIDLen+1), ok, ErrInvalidBatch},
		{"id of max length", strings.Repeat("x", MaxBatchIDLen), ok, nil},
		{"id with space", "b 1", ok, ErrInvalidBatch},
		{"id with newline", "b\r\n1", ok, ErrInvalidBatch},
		{"no messages", "b", nil, ErrInvalidBatch},
		{"too many", "b", outMsgs("out.x", "e", 4), ErrBatchTooLarge},
		{"missing msg id", "b", []OutMessage{{Subject: "out.x"}}, ErrInvalidBatch},
		{"msg id with newline", "b", []OutMessage{{Subject: "out.x", MsgID: "a\nb"}}, ErrInvalidBatch},
		{"wildcard subject", "b", []OutMessage{{Subject: "out.*", MsgID: "a"}}, ErrInvalidBatch},
		{"empty subject", "b", []OutMessage{{MsgID: "a"}}, ErrInvalidBatch},
		{"repeated msg id", "b", []OutMessage{{Subject: "out.x", MsgID: "a"}, {Subject: "out.y", MsgID: "a"}}, ErrInvalidBatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateBatch(tt.id, tt.msgs, 3)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Fatalf("validateBatch = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestPublishAtomicBatchRepeatedIDNeverSent: a batch with a repeated id
// would be answered like a stored one; it must be refused before sending.
func TestPublishAtomicBatchRepeatedIDNeverSent(t *testing.T) {
	c := embedded(t)
	ensureAtomicStream(t, c, "OUT", "out.>")
	msgs := outMsgs("out.x", "e", 3)
	msgs[2].MsgID = msgs[0].MsgID
	if _, err := c.PublishAtomicBatch(testCtx(t), "b", msgs); !errors.Is(err, ErrInvalidBatch) {
		t.Fatalf("err = %v, want ErrInvalidBatch", err)
	}
}
