// Package metric owns the ranking measures Norn's search is judged by: graded
// relevance judgements (qrels), a run's scores against them (MAP, nDCG@k, MRR@k,
// P@k, recall), and the document key eval.py compares by. It is the one copy of
// these rules, used by `norn bench search` and by graph's quality tests.
//
// It imports nothing of Norn's and never reads a vault or an index: it scores lists
// of paths it is given.
package metric
