package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// maxBinaryExponent bounds number literals to about ±1e77. Every setting is far smaller, and
// turning a number like 1e999999999 into text (which evaluation does for strings and JSON) takes
// time that grows with the square of its exponent: without this bound a one-line config could
// keep the loader busy for hours.
const maxBinaryExponent = 256

// checkNumberLiterals reports number literals too large or too small to be meant, before any
// expression is evaluated.
func checkNumberLiterals(body *hclsyntax.Body) Diagnostics {
	var out Diagnostics
	hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		lit, ok := n.(*hclsyntax.LiteralValueExpr)
		if !ok || lit.Val.Type() != cty.Number || !lit.Val.IsKnown() || lit.Val.IsNull() {
			return nil
		}
		if exp := lit.Val.AsBigFloat().MantExp(nil); exp > maxBinaryExponent || exp < -maxBinaryExponent {
			out = append(out, Diagnostic{
				Severity: SeverityError,
				Message:  "number out of range; numbers in a pipeline config must lie between 1e-77 and 1e77",
				Range:    lit.SrcRange,
				Err:      ErrInvalid,
			})
		}
		return nil
	})
	return out
}
