# payment-limits: payments checked against per-account limits, an operator with two inputs.
name     = "payment-limits"
data_dir = "./data"

# Streams are created when missing (embedded JetStream by default: no server block).
stream "LIMITS" {
  subjects = ["limits.>"]
}

stream "PAYMENTS2" {
  subjects = ["payments2.>"]
}

stream "DECISIONS" {
  subjects         = ["decisions.>"]
  duplicate_window = "10m"
}

source "limits" {
  stream  = "LIMITS"
  subject = "limits.in"
}

source "payments" {
  stream  = "PAYMENTS2"
  subject = "payments2.in"
}

# Input 0 is the limit updates, input 1 the payments: the operator tells them
# apart by this order.
operator "limits" {
  module = "operator/limits.wasm"
  inputs = ["limits", "payments"]
  key {
    json_field = "account"
  }
  outputs = { decisions = "decisions" }
}

sink "decisions" {
  subject = "decisions.out"
}
