package feed_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/norn-vault/norn/repo"
	"github.com/norn-vault/norn/sync/feed"
)

// BenchmarkHub_Delivery: 100 websocket subscribers while one writer commits
// 200 times a second; reports the delivery latency from a write's
// acknowledgement (Apply returning) to each subscriber's receipt (p50, p99; a
// receipt before the acknowledgement counts as 0), and the writer's own
// latency, with and without a subscriber that never reads beside them.
func BenchmarkHub_Delivery(b *testing.B) {
	for _, c := range []struct{ subs, stalled int }{{0, 0}, {100, 0}, {100, 1}} {
		b.Run(fmt.Sprintf("subscribers=%d/stalled=%d", c.subs, c.stalled), func(b *testing.B) {
			benchDelivery(b, c.subs, c.stalled)
		})
	}
}

type receipt struct {
	id repo.CommitID
	at time.Time
}

func benchDelivery(b *testing.B, subs, stalled int) {
	env := newEnv(b, nil, feed.Options{})
	for range stalled {
		if _, err := env.tryDial(tokAll, feed.Query{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	got := make([][]receipt, subs)
	var wg sync.WaitGroup
	for i := range subs {
		c := env.dial(b, tokAll, feed.Query{})
		c.expect(b, feed.TypeHello)
		wg.Go(func() {
			defer c.conn.Close()
			for {
				_, raw, err := c.conn.ReadMessage()
				if err != nil {
					b.Errorf("subscriber %d: %v", i, err)
					return
				}
				at := time.Now()
				m := parse(raw)
				got[i] = append(got[i], receipt{m.Commit, at})
				if m.Type == feed.TypeEvent && len(m.Changes) == 1 && m.Changes[0].Path == "done.md" {
					return
				}
			}
		})
	}
	acked := map[repo.CommitID]time.Time{}
	var writes []time.Duration
	tick := time.NewTicker(5 * time.Millisecond) // 200 writes a second
	defer tick.Stop()
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		<-tick.C
		t0 := time.Now()
		res, err := env.v.Apply(context.Background(), repo.Tx{Author: repo.Author{Name: "bench"}, Op: repo.OpWrite,
			Changes: []repo.Change{put(fmt.Sprintf("b/n%d.md", n), "# N\n")}})
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		acked[res.Commit] = now
		writes = append(writes, now.Sub(t0))
		n++
	}
	b.StopTimer()
	write(b, env.v, put("done.md", "# D\n"))
	wg.Wait()
	var lat []time.Duration
	for _, rs := range got {
		for _, r := range rs {
			if t, ok := acked[r.id]; ok {
				lat = append(lat, max(0, r.at.Sub(t)))
			}
		}
	}
	if len(lat) != subs*n {
		b.Fatalf("%d deliveries, want %d", len(lat), subs*n)
	}
	if subs > 0 {
		b.ReportMetric(pct(lat, 50), "p50-ms")
		b.ReportMetric(pct(lat, 99), "p99-ms")
	}
	b.ReportMetric(pct(writes, 50), "write-p50-ms")
	b.ReportMetric(pct(writes, 99), "write-p99-ms")
}

func parse(raw []byte) feed.Message {
	var m feed.Message
	_ = jsonUnmarshal(raw, &m)
	return m
}

func pct(ds []time.Duration, p int) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[(len(s)-1)*p/100]) / float64(time.Millisecond)
}

// BenchmarkHub_IdleSubscriber: the memory an idle subscriber costs (heap and
// goroutine stacks, both ends of the connection: the test's clients use small
// buffers).
func BenchmarkHub_IdleSubscriber(b *testing.B) {
	const conns = 200
	env := newEnv(b, nil, feed.Options{})
	dialer := &websocket.Dialer{ReadBufferSize: 256, WriteBufferSize: 256}
	for b.Loop() {
		before := memInUse()
		var cs []*wsClient
		for range conns {
			c, err := env.tryDial(tokAll, feed.Query{}, dialer)
			if err != nil {
				b.Fatal(err)
			}
			c.expect(b, feed.TypeHello)
			cs = append(cs, c)
		}
		for env.hub.Stats().Clients != conns {
			runtime.Gosched()
		}
		after := memInUse()
		b.ReportMetric(float64(after-before)/conns, "bytes/subscriber")
		for _, c := range cs {
			c.conn.Close()
		}
		for env.hub.Stats().Clients != 0 {
			runtime.Gosched()
		}
	}
}

func memInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}
