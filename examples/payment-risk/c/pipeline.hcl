# payment-risk with the C operator: a per-account running total of cents,
# deduplicated by event id. The same pipeline as ../pipeline.hcl; only the
# module differs (build it with scripts/build-c.sh).
name     = "payment-risk"
data_dir = "./data"

# Streams are created when missing (embedded JetStream by default: no server block).
stream "PAYMENTS" {
  subjects = ["payments.>"]
}

stream "RISK" {
  subjects         = ["risk.>"]
  duplicate_window = "10m"
}

source "payments" {
  stream  = "PAYMENTS"
  subject = "payments.in"
}

operator "risk" {
  module = "risk.wasm"
  inputs = ["payments"]
  key {
    json_field = "account"
  }
  config  = jsonencode({ max_cents = 100000000 })
  outputs = { out = "risk-totals" }
}

sink "risk-totals" {
  subject = "risk.totals"
}
