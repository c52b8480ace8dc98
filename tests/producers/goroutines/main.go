// goroutines: a Go program whose goroutines block in many different states, for
// the goroutine-dump tests. Usage:
//
//	goroutines dump OUTDIR   writes OUTDIR/goroutine.debug2.txt (runtime/pprof's
//	                         goroutine profile with debug=2) and, right after it,
//	                         OUTDIR/goroutine.pb.gz (the same profile, debug=0)
//	goroutines panic         panics in a goroutine (run with GOTRACEBACK=all and
//	                         capture stderr for a crash traceback)
//	goroutines deadlock      blocks every goroutine ("all goroutines are asleep")
//	goroutines sigquit       sends itself SIGQUIT (the runtime's dump on quit)
package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

type server struct{ requests chan int }

//go:noinline
func (s *server) serve() {
	for r := range s.requests {
		_ = r
	}
}

type queue[T any] struct{ items chan T }

//go:noinline
func (q *queue[T]) pop() T { return <-q.items }

//go:noinline
func waitOn[T any](ch chan T) T { return <-ch }

//go:noinline
func recvOne(ch chan int) int { return <-ch }

//go:noinline
func sendOne(ch chan int) { ch <- 1 }

//go:noinline
func selectTwo(a, b chan int) {
	select {
	case <-a:
	case <-b:
	}
}

//go:noinline
func sleepLong() { time.Sleep(time.Hour) }

//go:noinline
func lockHeld(mu *sync.Mutex) { mu.Lock() }

//go:noinline
func condWait(c *sync.Cond) {
	c.L.Lock()
	c.Wait()
}

//go:noinline
func acceptConn(l net.Listener) { _, _ = l.Accept() }

//go:noinline
func readPipe(r *os.File) {
	buf := make([]byte, 1)
	_, _ = r.Read(buf)
}

//go:noinline
func rawRead(fd int) {
	buf := make([]byte, 1)
	_, _ = syscall.Read(fd, buf) // a blocking read outside the netpoller: state "syscall"
}

//go:noinline
func lockedWait(ch chan int) {
	runtime.LockOSThread()
	<-ch
}

//go:noinline
func deep(n int, ch chan int) int {
	if n == 0 {
		return <-ch
	}
	return deep(n-1, ch) + 1
}

// inlined is small enough to be inlined into its caller, so the dump shows it
// as an inlined frame (no PC offset).
func inlined(ch chan int) int { return <-ch }

//go:noinline
func callsInlined(ch chan int) int { return inlined(ch) + 1 }

var spinSink int

//go:noinline
func spin(stop *int32) {
	for i := 0; ; i++ {
		spinSink += i
	}
}

// start launches the blocked goroutines; it returns once they have all blocked.
func start() {
	never := make(chan int)
	for i := 0; i < 3; i++ {
		go recvOne(never)
	}
	go sendOne(make(chan int)) // its own channel: no receiver ever pairs with it
	for i := 0; i < 2; i++ {
		go selectTwo(never, never)
	}
	go func() { select {} }()
	go sleepLong()
	mu := &sync.Mutex{}
	mu.Lock()
	go lockHeld(mu)
	c := sync.NewCond(&sync.Mutex{})
	go condWait(c)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { wg.Wait() }()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go acceptConn(l)
	r, w, err := os.Pipe()
	check(err)
	_ = w
	go readPipe(r)
	var fds [2]int
	check(syscall.Pipe(fds[:]))
	go rawRead(fds[0])
	go lockedWait(never)
	s := &server{requests: make(chan int)}
	go s.serve()
	q := &queue[string]{items: make(chan string)}
	go q.pop()
	go waitOn(make(chan float64))
	go deep(150, never)
	go callsInlined(never)
	var stop int32
	go spin(&stop)
	time.Sleep(300 * time.Millisecond)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func dump(dir string) {
	check(os.MkdirAll(dir, 0o755))
	start()
	f, err := os.Create(filepath.Join(dir, "goroutine.debug2.txt"))
	check(err)
	check(pprof.Lookup("goroutine").WriteTo(f, 2))
	check(f.Close())
	g, err := os.Create(filepath.Join(dir, "goroutine.pb.gz"))
	check(err)
	check(pprof.Lookup("goroutine").WriteTo(g, 0))
	check(g.Close())
}

//go:noinline
func explode(v int) {
	panic(fmt.Sprintf("boom %d", v))
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: goroutines dump OUTDIR | panic | deadlock | sigquit")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "dump":
		dump(os.Args[2])
	case "panic":
		start()
		done := make(chan int)
		go func() { explode(42) }()
		<-done
	case "deadlock":
		never := make(chan int)
		go recvOne(never)
		<-never
	case "sigquit":
		start()
		check(syscall.Kill(os.Getpid(), syscall.SIGQUIT))
		time.Sleep(10 * time.Second)
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}
