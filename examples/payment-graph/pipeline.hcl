# payment-graph: payments -> per-account running totals -> per-merchant -> per-region totals,
# three operators that read each other's outputs through exchange streams.
name     = "payment-graph"
data_dir = "./data"

# Streams are created when missing (embedded JetStream by default: no server block).
stream "PAYMENTS3" {
  subjects = ["payments3.>"]
}

stream "TOTALS" {
  subjects         = ["merchant.>", "region.>"]
  duplicate_window = "10m"
}

source "payments" {
  stream  = "PAYMENTS3"
  subject = "payments3.in"
  event_id {
    json_field = "event"
  }
}

# Stage 1 (Go): deduplicates by event id, keeps each account's running total and flags the
# payments of an account whose total is over 5000 cents. Its output goes to the next stage only.
operator "accounts" {
  module = "accounts/accounts.wasm"
  inputs = ["payments"]
  key {
    json_field = "account"
  }
  config           = jsonencode({ flag_over_cents = 5000 })
  internal_outputs = ["scored"]
}

# Stage 2 (Rust): the scored payments, re-keyed by merchant. Its totals go to a sink, what each
# payment adds to its region to stage 3.
operator "merchants" {
  module = "merchants/merchants.wasm"
  inputs = ["accounts.scored"]
  input "accounts.scored" {
    key {
      json_field = "merchant"
    }
  }
  outputs          = { totals = "merchant-totals" }
  internal_outputs = ["regional"]
}

# Stage 3 (Go): per-region totals.
operator "regions" {
  module = "regions/regions.wasm"
  inputs = ["merchants.regional"]
  input "merchants.regional" {
    key {
      json_field = "region"
    }
  }
  outputs = { totals = "region-totals" }
}

sink "merchant-totals" {
  subject = "merchant.totals"
}

sink "region-totals" {
  subject = "region.totals"
}
