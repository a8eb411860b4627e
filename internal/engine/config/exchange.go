package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Exchange configures the exchange streams that carry records between operators and from
// routers (internal/exchange/FORMAT.md).
type Exchange struct {
	// DuplicateWindow is how long an exchange stream remembers record ids: a producer that
	// replays from a checkpoint republishes what it published after it, and the stream drops
	// what it stored within the window. It must cover the replay, from the first publication
	// after the restored checkpoint to the end of the recovery.
	DuplicateWindow time.Duration
	// Range is the block's position; zero when the file has no exchange block.
	Range hcl.Range
}

// exchange.duplicate_window: a restart within the default after a crash replays nothing twice;
// below a minute a slow restore outlasts it; above a week the server keeps ids it never needs.
const (
	DefaultExchangeDuplicateWindow = 2 * time.Hour
	minExchangeDuplicateWindow     = time.Minute
	maxExchangeDuplicateWindow     = 7 * 24 * time.Hour
)

func defaultExchange() Exchange { return Exchange{DuplicateWindow: DefaultExchangeDuplicateWindow} }

// decodeExchange reads the exchange block.
func (d *decoder) decodeExchange(b *hcl.Block) Exchange {
	a, _ := d.body(b, exchangeSchema, "exchange")
	return Exchange{Range: b.DefRange, DuplicateWindow: a.durationIn("duplicate_window", minExchangeDuplicateWindow, maxExchangeDuplicateWindow,
		DefaultExchangeDuplicateWindow, "the exchange streams must remember record ids for as long as a restart after a crash may take")}
}

func writeExchange(b *hclwrite.Body, e Exchange) {
	b.SetAttributeValue("duplicate_window", durationVal(e.DuplicateWindow))
}
