# Checkpoints only on demand and at stop, unaligned, one kept; the operator declares the version
# of its state layout.
name = "unaligned"

checkpoint {
  interval  = "0s"
  min_pause = "250ms"
  mode      = "unaligned"
  retain    = 1
}

stream "IN" {
  subjects = ["in.>", "out.>"]
}

source "left" {
  stream  = "IN"
  subject = "in.left"
}

source "right" {
  stream  = "IN"
  subject = "in.right"
}

operator "join" {
  module        = "join.wasm"
  state_version = "orders-v3.1_x"
  inputs        = ["left", "right"]
  key {
    header = "Order-Id"
  }
  outputs = { out = "joined" }
}

sink "joined" {
  subject = "out.joined"
}
