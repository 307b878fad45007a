package ops

import "reflect"

// A Shape is what one op reads in its header and answers in its reply
// header, as the Go types whose JSON they are. Any op can answer
// ErrorReply instead.
type Shape struct {
	Op string
	// Request is the type the header is read into: a string for
	// Configure, whose header the engine reads as it is, and struct{}
	// for an op that reads none.
	Request reflect.Type
	// Reply is the type of the reply header.
	Reply reflect.Type
}

// Shapes lists every op's shape, in the order of All: Init's and Exit's,
// which Handle answers itself, and those of the method table, which
// reads each header into its request type and declares its reply type
// (TestReplies holds the replies to it). The page's contract
// (js/webmcp/contract.js) declares its types from them, and the type
// check of the page's modules holds them to it.
var Shapes = shapes()

func shapes() []Shape {
	var out []Shape
	for _, op := range All {
		switch op {
		case Init:
			out = append(out, Shape{op, reflect.TypeFor[InitRequest](), reflect.TypeFor[InitReply]()})
		case Exit:
			out = append(out, Shape{op, reflect.TypeFor[struct{}](), reflect.TypeFor[OKReply]()})
		default:
			m := methods[op]
			out = append(out, Shape{op, m.request, m.reply})
		}
	}
	return out
}
