// The Go anchors of libtether's benchmarks: each function is the Go twin of
// a benchmark in bench/context (same shape, same sizes), so bench/vs-go.bench.sh
// can run the two alternately and write their ratio. Built with Debian's
// golang-go (a benchmark dependency only). Prints one line per benchmark:
// NAME VALUE UNIT.
//
// errgroup is not in Go's standard library (golang.org/x/sync): a group here
// is what errgroup.Group is, a sync.WaitGroup plus the first error kept once.
package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

const (
	spawners   = 8
	spawnTasks = 100000
	perSpawner = spawnTasks / spawners
	batch      = 1000
	groupTasks = 1000
	items      = 100000
	capacity   = 128
)

// group: errgroup.Group's mechanism.
type group struct {
	wg      sync.WaitGroup
	errOnce sync.Once
	err     error
}

func (g *group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.errOnce.Do(func() { g.err = err })
		}
	}()
}

func (g *group) Wait() error {
	g.wg.Wait()
	return g.err
}

func fromSpawners(spawn func()) {
	var wg sync.WaitGroup
	for s := 0; s < spawners; s++ {
		wg.Add(1)
		go func() { defer wg.Done(); spawn() }()
	}
	wg.Wait()
}

// spawn_bench BM_GoTaskEnd: 100,000 detached tasks from 8 spawners, each
// spawner waiting for its tasks' countdown.
func goTaskEnd(b *testing.B) {
	for n := 0; n < b.N; n++ {
		fromSpawners(func() {
			var left int64 = perSpawner
			done := make(chan struct{})
			for i := 0; i < perSpawner; i++ {
				go func() {
					if atomic.AddInt64(&left, -1) == 0 {
						close(done)
					}
				}()
			}
			<-done
		})
	}
}

// spawn_bench BM_TaskGroupGoWait: a group per 1,000 tasks, 8 spawners.
func spawnGroupGoWait(b *testing.B) {
	for n := 0; n < b.N; n++ {
		fromSpawners(func() {
			for done := 0; done < perSpawner; done += batch {
				var g group
				for i := done; i < perSpawner && i < done+batch; i++ {
					g.Go(func() error { return nil })
				}
				_ = g.Wait()
			}
		})
	}
}

// context_bench BM_WithCancelCancel.
func withCancelCancel(b *testing.B) {
	parent, cancelParent := context.WithCancel(context.Background())
	defer cancelParent()
	for n := 0; n < b.N; n++ {
		ctx, cancel := context.WithCancel(parent)
		cancel()
		_ = ctx
	}
}

// context_bench BM_CancelPropagation: a tree of n descendants, fan-out 8;
// only the root's cancel is timed.
func cancelPropagation(n int) func(b *testing.B) {
	return func(b *testing.B) {
		for it := 0; it < b.N; it++ {
			b.StopTimer()
			root, cancelRoot := context.WithCancel(context.Background())
			nodes := make([]context.Context, 0, n)
			cancels := make([]context.CancelFunc, 0, n)
			for i := 0; i < n; i++ {
				parent := root
				if i >= 8 {
					parent = nodes[i/8-1]
				}
				c, cancel := context.WithCancel(parent)
				nodes = append(nodes, c)
				cancels = append(cancels, cancel)
			}
			b.StartTimer()
			cancelRoot()
			b.StopTimer()
			if nodes[n-1].Err() == nil {
				fmt.Fprintln(os.Stderr, "leaf not cancelled")
				os.Exit(1)
			}
			for _, c := range cancels {
				c()
			}
			b.StartTimer()
		}
	}
}

// context_bench BM_TaskGroupGoWait: 1,000 trivial tasks in one group.
func groupGoWait(b *testing.B) {
	for n := 0; n < b.N; n++ {
		var g group
		for i := 0; i < groupTasks; i++ {
			g.Go(func() error { return nil })
		}
		_ = g.Wait()
	}
}

// context_bench BM_ChannelSendRecv: one producer, one consumer, 100,000 ints
// through a 128-slot buffered channel.
func channelSendRecv(b *testing.B) {
	for n := 0; n < b.N; n++ {
		ch := make(chan int, capacity)
		go func() {
			for i := 0; i < items; i++ {
				ch <- i
			}
			close(ch)
		}()
		sum := 0
		for v := range ch {
			sum += v
		}
		_ = sum
	}
}

// context_bench BM_SelectTwoChannels: two producers, 50,000 ints each through
// two 128-slot channels, one consumer selecting over both until both close.
func selectTwoChannels(b *testing.B) {
	for n := 0; n < b.N; n++ {
		a, c := make(chan int, capacity), make(chan int, capacity)
		for _, ch := range []chan int{a, c} {
			go func(ch chan int) {
				for i := 0; i < items/2; i++ {
					ch <- i
				}
				close(ch)
			}(ch)
		}
		sum := 0
		for a != nil || c != nil {
			select {
			case v, ok := <-a:
				if !ok {
					a = nil
				} else {
					sum += v
				}
			case v, ok := <-c:
				if !ok {
					c = nil
				} else {
					sum += v
				}
			}
		}
		_ = sum
	}
}

func report(name string, r testing.BenchmarkResult, per float64, unit string) {
	fmt.Printf("%s %.4f %s\n", name, float64(r.T.Nanoseconds())/float64(r.N)/per, unit)
}

// The process's CPU time so far (user + system), ns.
func cpuTime() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// Runs a spawn shape 10 times (outside testing.Benchmark, whose trial runs
// would count) and prints the process's CPU time a task, µs: what the
// wall time a task cost the machine (spawn_bench's cpu_us_a_task).
func reportCPU(name string, shape func(*testing.B)) {
	const runs = 10
	before := cpuTime()
	shape(&testing.B{N: runs})
	fmt.Printf("%s %.4f us/task\n", name, float64(cpuTime()-before)/1e3/float64(runs*spawnTasks))
}

func main() {
	report("spawn_go_task_end", testing.Benchmark(goTaskEnd), spawnTasks*1e3, "us/task")
	reportCPU("spawn_go_task_end_cpu", goTaskEnd)
	report("spawn_group_go_wait", testing.Benchmark(spawnGroupGoWait), spawnTasks*1e3, "us/task")
	reportCPU("spawn_group_go_wait_cpu", spawnGroupGoWait)
	report("with_cancel_cancel", testing.Benchmark(withCancelCancel), 1, "ns")
	report("cancel_propagation_1000", testing.Benchmark(cancelPropagation(1000)), 1e3, "us")
	report("cancel_propagation_10000", testing.Benchmark(cancelPropagation(10000)), 1e3, "us")
	report("group_go_wait_1000", testing.Benchmark(groupGoWait), 1e6, "ms")
	report("channel_send_recv", testing.Benchmark(channelSendRecv), 1e6, "ms")
	report("select_two_channels", testing.Benchmark(selectTwoChannels), 1e6, "ms")
}
