"""What the tests and the benchmarks run hubtui with: the demo server as a process, a real terminal
(tmux, a pty), a PostgreSQL of their own, hostile servers and a large demo to load."""
