package config

import "github.com/hashicorp/hcl/v2"

func defaultLimits() Limits {
	return Limits{
		MemoryPages:       DefaultMemoryPages,
		BatchTimeout:      DefaultBatchTimeout,
		BatchSize:         DefaultBatchSize,
		MaxValueBytes:     DefaultMaxValueBytes,
		MaxEmitsPerRecord: DefaultMaxEmitsPerRecord,
		MaxTableElements:  DefaultMaxTableElements,
	}
}

// decodeLimits reads an operator's limits block.
func (d *decoder) decodeLimits(b *hcl.Block, owner string) Limits {
	a, _ := d.body(b, limitsSchema, owner+": limits")
	l := Limits{
		MemoryPages:       uint32(a.integer("memory_pages", 1, maxMemoryPages, DefaultMemoryPages)),
		BatchTimeout:      a.duration("batch_timeout", DefaultBatchTimeout),
		BatchSize:         int(a.integer("batch_size", 1, maxBatchSize, DefaultBatchSize)),
		MaxValueBytes:     int(a.integer("max_value_bytes", 1, maxMemoryPages*wasmPageBytes, DefaultMaxValueBytes)),
		MaxEmitsPerRecord: int(a.integer("max_emits_per_record", 1, maxEmitsPerRecord, DefaultMaxEmitsPerRecord)),
		MaxTableElements:  uint32(a.integer("max_table_elements", 1, maxTableElements, DefaultMaxTableElements)),
	}
	checkValueFits(a, l)
	return l
}

// checkValueFits refuses a value limit larger than the guest's memory, which must hold the value.
// The message points at whichever of the two settings the user wrote.
func checkValueFits(a *attrs, l Limits) {
	memory := int(l.MemoryPages) * wasmPageBytes
	switch {
	case l.MaxValueBytes <= memory:
	case a.has("max_value_bytes"):
		a.errorf("max_value_bytes", "%d does not fit in the guest's memory (memory_pages %d = %d bytes); lower max_value_bytes or raise memory_pages",
			l.MaxValueBytes, l.MemoryPages, memory)
	default:
		a.errorf("memory_pages", "%d pages (%d bytes) cannot hold a value of max_value_bytes %d (the default); raise memory_pages or lower max_value_bytes",
			l.MemoryPages, memory, l.MaxValueBytes)
	}
}
