# payment-risk with the AssemblyScript operator: the same pipeline as
# ../pipeline.hcl, with the module built from this folder (npm ci && npm run build).
name     = "payment-risk"
data_dir = "./data"

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
