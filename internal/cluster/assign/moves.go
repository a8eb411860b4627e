package assign

// Move is a range of an operator's key groups that changes owner: the
// handover checkpoint (design §5.5) stops the tasks that hold it on From
// after their snapshot, and To restores it from that checkpoint. From is
// empty for an operator the previous assignment did not have. Key groups
// of an operator that was removed do not move anywhere and are not listed.
type Move struct {
	Operator string
	Range    Range
	From, To string
}

// moves lists the key groups whose owner differs between prev and next,
// by operator and key group, each run of consecutive key groups with the
// same From and To as one Move.
func moves(prev *Assignment, next Assignment) []Move {
	var ms []Move
	for _, o := range next.Operators {
		var old []Task
		if prev != nil && prev.operator(o.Name) != nil {
			old = prev.operator(o.Name).Tasks
		}
		ms = append(ms, operatorMoves(o, old)...)
	}
	return ms
}

// operatorMoves walks the pieces that o's tasks and old's cut the key
// groups into: each piece has one old and one new owner.
func operatorMoves(o OperatorTasks, old []Task) []Move {
	var ms []Move
	j := 0
	for _, t := range o.Tasks {
		for start := t.Range.Start; start < t.Range.End; {
			piece, from := Range{start, t.Range.End}, ""
			if old != nil {
				for old[j].Range.End <= start {
					j++
				}
				piece.End, from = min(t.Range.End, old[j].Range.End), old[j].Worker
			}
			if from != t.Worker {
				ms = appendMove(ms, Move{Operator: o.Name, Range: piece, From: from, To: t.Worker})
			}
			start = piece.End
		}
	}
	return ms
}

// appendMove appends m, or extends the last move when m continues it.
func appendMove(ms []Move, m Move) []Move {
	if n := len(ms); n > 0 && ms[n-1].From == m.From && ms[n-1].To == m.To && ms[n-1].Range.End == m.Range.Start {
		ms[n-1].Range.End = m.Range.End
		return ms
	}
	return append(ms, m)
}
