package main

// decision is the verdict on one payment.
type decision string

// The decisions, as they appear in the output.
const (
	approved  decision = "approved"
	overLimit decision = "over-limit"
	noLimit   decision = "no-limit"
)

// decide judges a payment of amount against the account's limit (if known)
// and what it has spent so far, and returns the spent total after it. All
// amounts are non-negative, so limit-spent cannot overflow, and an approved
// spent+amount is at most limit: no overflow check is needed.
func decide(amount, spent, limit int64, limitKnown bool) (decision, int64) {
	switch {
	case !limitKnown:
		return noLimit, spent
	case amount > limit-spent:
		// Also taken when a lowered limit is already below spent.
		return overLimit, spent
	}
	return approved, spent + amount
}

// result is what the operator emits for every non-duplicate payment.
type result struct {
	ID          string   `json:"id"`
	Account     string   `json:"account"`
	AmountCents int64    `json:"amount_cents"`
	SpentCents  int64    `json:"spent_cents"` // after this payment
	LimitCents  int64    `json:"limit_cents"` // 0 when the account has no limit
	Decision    decision `json:"decision"`
}
