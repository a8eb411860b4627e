package crashtest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
)

// riskEvent is one payment-risk input; its Nats-Msg-Id is msgID.
func riskEvent(msgID, account, event string, cents int64) input {
	b, _ := json.Marshal(map[string]any{"account": account, "event": event, "cents": cents})
	return input{msgID: msgID, data: b}
}

// randomRiskEvents returns n events evt-1..evt-n over accounts acct-0 ..
// acct-<accounts-1>, the same for the same seed.
func randomRiskEvents(n, accounts int, seed uint64) []input {
	r := rand.New(rand.NewPCG(seed, 0))
	out := make([]input, n)
	for i := range out {
		ev := fmt.Sprintf("evt-%d", i+1)
		out[i] = riskEvent(ev, fmt.Sprintf("acct-%d", r.IntN(accounts)), ev, int64(1+r.IntN(10000)))
	}
	return out
}

// sumRecords returns sum2 inputs number from..to (inclusive) of source, with
// value i on key key-<i mod keys>.
func sumRecords(source string, from, to, keys int) []input {
	var out []input
	for i := from; i <= to; i++ {
		b, _ := json.Marshal(map[string]any{"k": fmt.Sprintf("key-%d", i%keys), "v": i})
		out = append(out, input{msgID: fmt.Sprintf("%s-%d", source, i), data: b})
	}
	return out
}
