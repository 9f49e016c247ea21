package icdar

// Ratio is Python's difflib.SequenceMatcher(None, a, b).ratio(): 2·M / (len(a)+len(b)) where M
// is the total size of the matching blocks, 1 when both are empty. It follows CPython's
// algorithm step by step, because the score depends on it and not only on the sequences'
// edit distance:
//
//   - b2j maps each element of b to its indices; with autojunk (on by default) and
//     len(b) >= 200, an element occurring more than len(b)/100+1 times is "popular" and removed
//     from b2j, so it can only be matched by extending a block found through other elements;
//   - find_longest_match finds the longest block a[i:i+k] == b[j:j+k] inside the window,
//     earliest i then earliest j on ties, by dynamic programming over b2j, then extends it
//     on both sides with equal elements (popular ones included, there is no isjunk);
//   - get_matching_blocks applies it recursively to the parts left and right of each block,
//     processing a LIFO queue as CPython does (the order does not change the sum).
//
// Elements are compared with ==; the metric uses strings (cell texts).
func Ratio[T comparable](a, b []T) float64 {
	n := len(a) + len(b)
	if n == 0 {
		return 1
	}
	return 2 * float64(matches(a, b)) / float64(n)
}

func matches[T comparable](a, b []T) int {
	b2j := map[T][]int{}
	for i, e := range b {
		b2j[e] = append(b2j[e], i)
	}
	if len(b) >= 200 {
		ntest := len(b)/100 + 1
		for e, idx := range b2j {
			if len(idx) > ntest {
				delete(b2j, e)
			}
		}
	}
	type window struct{ alo, ahi, blo, bhi int }
	queue := []window{{0, len(a), 0, len(b)}}
	total := 0
	// j2len and next are reused across calls: maps keyed by j, as CPython's dicts.
	j2len := map[int]int{}
	next := map[int]int{}
	for len(queue) > 0 {
		w := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		besti, bestj, best := w.alo, w.blo, 0
		clear(j2len)
		for i := w.alo; i < w.ahi; i++ {
			clear(next)
			for _, j := range b2j[a[i]] {
				if j < w.blo {
					continue
				}
				if j >= w.bhi {
					break
				}
				k := j2len[j-1] + 1
				next[j] = k
				if k > best {
					besti, bestj, best = i-k+1, j-k+1, k
				}
			}
			j2len, next = next, j2len
		}
		for besti > w.alo && bestj > w.blo && a[besti-1] == b[bestj-1] {
			besti, bestj, best = besti-1, bestj-1, best+1
		}
		for besti+best < w.ahi && bestj+best < w.bhi && a[besti+best] == b[bestj+best] {
			best++
		}
		if best == 0 {
			continue
		}
		total += best
		if w.alo < besti && w.blo < bestj {
			queue = append(queue, window{w.alo, besti, w.blo, bestj})
		}
		if besti+best < w.ahi && bestj+best < w.bhi {
			queue = append(queue, window{besti + best, w.ahi, bestj + best, w.bhi})
		}
	}
	return total
}
