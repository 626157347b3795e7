package graph

import (
	"bytes"
	"context"
	"fmt"
	"iter"

	"github.com/cockroachdb/pebble/v2"

	"github.com/norn-vault/norn/note"
)

// Batch is one commit's worth of records: what Update writes, in one atomic
// pebble batch with Commit as the commit the index reflects.
type Batch struct {
	Commit  string
	Records []Record
}

// Record is one thing to index. Its kinds are Doc (a note, or an attachment when
// its Note is nil), Remove (a path no longer at the commit) and Row (an entry of a
// derived table, such as the ledger's claims). The set is closed: only this
// package's types are Records.
type Record interface {
	// Kind names the record's kind; a Doc is KindNote or KindAttachment.
	Kind() RecordKind
}

// RecordKind is a Record's kind.
type RecordKind string

// The record kinds.
const (
	KindNote       RecordKind = "note"
	KindAttachment RecordKind = "attachment"
	KindRemove     RecordKind = "remove"
	KindRow        RecordKind = "row"
)

// Kind is KindNote, or KindAttachment when d has no Note.
func (d Doc) Kind() RecordKind {
	if d.Note == nil {
		return KindAttachment
	}
	return KindNote
}

// Remove drops Path — a note or an attachment — from the index; removing a path
// that is not indexed is a no-op. Only Update takes it: a Rebuild starts empty.
type Remove struct{ Path note.Path }

// Kind is KindRemove.
func (Remove) Kind() RecordKind { return KindRemove }

// Row is an entry of a derived table: Value under Key in Table, or, with Delete,
// the entry's removal (Value then nil; deleting an absent key is a no-op). The
// index stores rows as they are and never interprets them; whoever derives them
// passes them to Update as they change and all of them to Rebuild, which drops
// every row it is not given.
//
// Table is 1 to 64 bytes of a-z, 0-9, '.', '_' and '-'; Key 1 to maxRowKey bytes;
// Value at most maxRowValue bytes.
type Row struct {
	Table  string
	Key    []byte
	Value  []byte
	Delete bool
}

// Kind is KindRow.
func (Row) Kind() RecordKind { return KindRow }

// Limits on a Row.
const (
	maxRowTable = 64
	maxRowKey   = 4 << 10
	maxRowValue = 1 << 20
)

// DocRecords yields docs as Records, for a caller that reads only notes and
// attachments into a Rebuild.
func DocRecords(docs iter.Seq2[Doc, error]) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for d, err := range docs {
			if !yield(d, err) {
				return
			}
		}
	}
}

// batchParts are a batch's records by kind, checked.
type batchParts struct {
	put    []Doc
	remove []note.Path
	rows   []Row
}

// split sorts b's records by kind and checks them: a path neither empty nor put
// twice nor both put and removed; rows valid and each (table, key) at most once.
func (b *Batch) split() (batchParts, error) {
	p := batchParts{put: make([]Doc, 0, len(b.Records))}
	var rs rowSet
	for _, r := range b.Records {
		switch r := r.(type) {
		case Doc:
			p.put = append(p.put, r)
		case Remove:
			p.remove = append(p.remove, r.Path)
		case Row:
			if err := rs.add(r); err != nil {
				return p, err
			}
			p.rows = append(p.rows, r)
		case nil:
			return p, fmt.Errorf("%w: nil record", ErrInvalidBatch)
		default:
			return p, fmt.Errorf("%w: unknown record kind %q", ErrInvalidBatch, r.Kind())
		}
	}
	return p, checkDocs(p.put, p.remove)
}

// rowSet checks rows and remembers their keys, to refuse one given twice.
type rowSet map[string]bool

func (s *rowSet) add(r Row) error {
	if err := r.check(); err != nil {
		return err
	}
	if *s == nil {
		*s = rowSet{}
	}
	k := string(rowKey(nil, r.Table, r.Key))
	if (*s)[k] {
		return fmt.Errorf("%w: row %s/%q given twice", ErrInvalidBatch, r.Table, r.Key)
	}
	(*s)[k] = true
	return nil
}

func (r *Row) check() error {
	if err := checkTable(r.Table); err != nil {
		return err
	}
	switch {
	case len(r.Key) == 0 || len(r.Key) > maxRowKey:
		return fmt.Errorf("%w: row %s: key of %d bytes (1 to %d)", ErrInvalidBatch, r.Table, len(r.Key), maxRowKey)
	case len(r.Value) > maxRowValue:
		return fmt.Errorf("%w: row %s/%q: value of %d bytes (at most %d)", ErrInvalidBatch, r.Table, r.Key, len(r.Value), maxRowValue)
	case r.Delete && r.Value != nil:
		return fmt.Errorf("%w: row %s/%q: a delete with a value", ErrInvalidBatch, r.Table, r.Key)
	}
	return nil
}

func checkTable(t string) error {
	if len(t) == 0 || len(t) > maxRowTable {
		return fmt.Errorf("%w: table name of %d bytes (1 to %d)", ErrInvalidBatch, len(t), maxRowTable)
	}
	for i := range len(t) {
		c := t[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("%w: table name %q: byte %q not in [a-z0-9._-]", ErrInvalidBatch, t, c)
		}
	}
	return nil
}

// Row key layout, beside the search and link tables and written in the same
// batches:
//
//	r/<table>\x00<key>   a Row's value
//
// The table name has no 0 byte, so one table's keys never run into another's.
// The prefix sorts between the link graph's "g/" and the search tables' "s/":
// a Rebuild excises that whole span and writes rows into the sstable between
// g/n and s/d.
const prefixRow = "r/"

func rowKey(dst []byte, table string, key []byte) []byte {
	dst = append(dst, prefixRow...)
	dst = append(dst, table...)
	dst = append(dst, 0)
	return append(dst, key...)
}

// writeRows sets or deletes rows in b.
func writeRows(b *pebble.Batch, rows []Row) error {
	var k []byte
	for _, r := range rows {
		k = rowKey(k[:0], r.Table, r.Key)
		var err error
		if r.Delete {
			err = b.Delete(k, nil)
		} else {
			err = b.Set(k, r.Value, nil)
		}
		if err != nil {
			return corrupt(err)
		}
	}
	return nil
}

// LookupRow returns the value of key in table and whether it is there.
func (ix *Index) LookupRow(table string, key []byte) ([]byte, bool, error) {
	if err := checkTable(table); err != nil {
		return nil, false, fmt.Errorf("lookup row: %w", err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, false, ErrClosed
	}
	v, err := ix.get(rowKey(nil, table, key))
	if err != nil {
		return nil, false, fmt.Errorf("lookup row %s/%q: %w", table, key, err)
	}
	return v, v != nil, nil
}

// Rows returns the rows of table whose keys start with prefix (every row of the
// table for an empty prefix), in key order, as of one commit: an Update or
// Rebuild meanwhile is seen whole or not at all.
func (ix *Index) Rows(ctx context.Context, table string, prefix []byte) ([]Row, error) {
	if err := checkTable(table); err != nil {
		return nil, fmt.Errorf("read rows: %w", err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, ErrClosed
	}
	lo := rowKey(nil, table, prefix)
	it, err := ix.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: upperBound(lo)})
	if err != nil {
		return nil, fmt.Errorf("read rows of %s: %w", table, corrupt(err))
	}
	skip := len(prefixRow) + len(table) + 1
	var out []Row
	for ok := it.First(); ok; ok = it.Next() {
		if err := ctx.Err(); err != nil {
			it.Close()
			return nil, err
		}
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return nil, fmt.Errorf("read rows of %s: %w", table, corrupt(err))
		}
		out = append(out, Row{Table: table, Key: bytes.Clone(it.Key()[skip:]), Value: bytes.Clone(v)})
	}
	if err := it.Close(); err != nil {
		return nil, fmt.Errorf("read rows of %s: %w", table, corrupt(err))
	}
	return out, nil
}

// upperBound is the first key after every key starting with p: p with its last
// byte below 0xff incremented and what follows dropped. p is never all 0xff here
// (it starts with prefixRow).
func upperBound(p []byte) []byte {
	b := bytes.Clone(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return b[:i+1]
		}
	}
	return nil
}

// DocBatch is the batch of commit that puts put and removes remove, for a
// caller that has only notes and attachments to write.
func DocBatch(commit string, put []Doc, remove []note.Path) Batch {
	b := Batch{Commit: commit, Records: make([]Record, 0, len(put)+len(remove))}
	for _, d := range put {
		b.Records = append(b.Records, d)
	}
	for _, p := range remove {
		b.Records = append(b.Records, Remove{Path: p})
	}
	return b
}
