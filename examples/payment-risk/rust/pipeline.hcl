# payment-risk with the Rust operator: the same pipeline as ../pipeline.hcl,
# with the module built by scripts/build-rust.sh.
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
