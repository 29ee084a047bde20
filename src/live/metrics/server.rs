//! The HTTP endpoint of `--metrics`: one thread, non-blocking sockets and `poll(2)`, so no client
//! can hold it. A request must arrive whole (at most [`MAX_REQUEST`] bytes) within
//! [`REQUEST_DEADLINE`] of the connection, and the answer must be taken within
//! [`ANSWER_DEADLINE`]; at most [`MAX_CONNECTIONS`] are open, and a new one pushes out the oldest
//! that has not finished its request, once that one has had [`GRACE`] to send it. A connection
//! is read as soon as it is accepted, so a scraper that sends its request with its connection is
//! answered before any flood of later connections can push it out; when every open connection is
//! younger than [`GRACE`], the rest wait in the kernel's backlog. Every answer closes its
//! connection. The thread renders the
//! metrics (see [`super::exposition`]) at most once per change of the state, so a client that
//! scrapes in a loop costs a copy of bytes, not a rendering.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::Metrics;
use super::exposition::{Exposition, Format};

/// The largest request head read; a larger one is answered 431 and closed.
pub const MAX_REQUEST: usize = 8 * 1024;
/// Connections open at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Time a client has, from its connection, to send its whole request.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(2);
/// The least time a connection is given to send its request before a newer one may push it out.
pub const GRACE: Duration = Duration::from_millis(100);
/// Time a client has, from its connection, to take the whole answer.
pub const ANSWER_DEADLINE: Duration = Duration::from_secs(10);
/// The longest the endpoint waits, after the run, for a scraper to read the final numbers.
pub const MAX_LINGER: Duration = Duration::from_secs(30);
/// How often the thread looks at its stop flag when nothing happens.
const TICK_MS: i32 = 100;

/// The endpoint's thread.
pub struct Server {
    address: SocketAddr,
    metrics: Metrics,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Listens on `address` and serves `metrics` from a thread of its own.
    pub fn start(address: SocketAddr, metrics: Metrics) -> io::Result<Server> {
        let listener = TcpListener::bind(address)?;
        listener.set_nonblocking(true)?;
        let address = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::thread::Builder::new()
            .name("iospd-metrics".into())
            .spawn({
                let (metrics, stop) = (metrics.clone(), stop.clone());
                move || serve(&listener, &metrics, &stop)
            })?;
        Ok(Server {
            address,
            metrics,
            stop,
            thread: Some(thread),
        })
    }

    /// Where it listens (the port chosen when asked for port 0).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The run is over and its numbers final: when scrapers have been scraping, waits until each
    /// of them has read them (up to two of the longest period, at most [`MAX_LINGER`]), so the
    /// last interval reaches every scraper too; then stops. `say` hears of a wait longer than a
    /// second.
    pub fn finish(mut self, say: impl Fn(&str)) {
        self.metrics.set_phase(super::Phase::Done);
        let final_state = self.metrics.generation();
        let scrapers = self.metrics.scrapers();
        if let Some(patience) = scrapers.patience() {
            let patience = patience.min(MAX_LINGER);
            if patience > Duration::from_secs(1) {
                say(&format!(
                    "iospd: serving the final metrics until each scraper has read them (at most {} s)",
                    patience.as_secs()
                ));
            }
            let end = Instant::now() + patience;
            while !scrapers.all_shown(final_state) && Instant::now() < end {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        self.stop();
    }

    fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One client.
struct Connection {
    stream: TcpStream,
    since: Instant,
    request: Vec<u8>,
    /// Who connected.
    peer: Option<std::net::IpAddr>,
    /// The answer and how much of it is sent, once the request is read.
    answer: Option<(Vec<u8>, usize)>,
}

impl Connection {
    fn deadline(&self) -> Instant {
        self.since
            + if self.answer.is_some() {
                ANSWER_DEADLINE
            } else {
                REQUEST_DEADLINE
            }
    }
}

/// The rendered metrics, kept while the state does not change.
struct Rendered {
    exposition: Exposition,
    /// Per format: the state's generation it shows, and the body.
    bodies: [Option<(u64, Arc<[u8]>)>; 3],
}

impl Rendered {
    fn body(&mut self, metrics: &Metrics, format: Format) -> Arc<[u8]> {
        let slot = &mut self.bodies[format as usize];
        let generation = metrics.generation();
        match slot {
            Some((shown, body)) if *shown == generation => body.clone(),
            _ => {
                let body: Arc<[u8]> = self.exposition.render(format).into();
                *slot = Some((generation, body.clone()));
                body
            }
        }
    }
}

fn serve(listener: &TcpListener, metrics: &Metrics, stop: &AtomicBool) {
    let mut connections: Vec<Connection> = Vec::new();
    let mut rendered = Rendered {
        exposition: Exposition::new(metrics.clone()),
        bodies: [None, None, None],
    };
    let mut fds: Vec<libc::pollfd> = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        fds.clear();
        // A full table with no connection to push out leaves the listener unwatched (poll skips a
        // negative descriptor), so the waiting backlog does not spin this thread; the tick
        // comes back to it.
        let room = connections.len() < MAX_CONNECTIONS || evictable(&connections).is_some();
        fds.push(libc::pollfd {
            fd: if room { listener.as_raw_fd() } else { -1 },
            events: libc::POLLIN,
            revents: 0,
        });
        fds.extend(connections.iter().map(|c| libc::pollfd {
            fd: c.stream.as_raw_fd(),
            events: if c.answer.is_some() {
                libc::POLLOUT
            } else {
                libc::POLLIN
            },
            revents: 0,
        }));
        // SAFETY: `fds` is a live, initialised array of `fds.len()` pollfd structures.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, TICK_MS) };
        accept(listener, &mut connections, metrics, &mut rendered);
        let now = Instant::now();
        connections.retain_mut(|c| now < c.deadline() && progress(c, metrics, &mut rendered));
    }
}

/// Takes every waiting connection and reads what it has sent. At the limit, a new one replaces the
/// oldest still reading that has had [`GRACE`]; when there is none, the rest stay in the backlog
/// until a later round.
fn accept(
    listener: &TcpListener,
    connections: &mut Vec<Connection>,
    metrics: &Metrics,
    rendered: &mut Rendered,
) {
    loop {
        // At the limit, the connection that will make room; none yet: accept later.
        let making_room = if connections.len() >= MAX_CONNECTIONS {
            match evictable(connections) {
                Some(i) => Some(i),
                None => return,
            }
        } else {
            None
        };
        let (stream, peer) = match listener.accept() {
            Ok((stream, peer)) => (stream, peer.ip()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // Out of descriptors (or another passing failure): the connection waits in the
            // backlog; rest rather than spin on a listener that stays readable.
            Err(_) => {
                std::thread::sleep(Duration::from_millis(10));
                return;
            }
        };
        if stream.set_nonblocking(true).is_err() {
            continue;
        }
        if let Some(i) = making_room {
            connections.swap_remove(i);
        }
        let mut connection = Connection {
            stream,
            since: Instant::now(),
            request: Vec::new(),
            peer: Some(peer),
            answer: None,
        };
        if progress(&mut connection, metrics, rendered) {
            connections.push(connection);
        }
    }
}

/// The oldest connection still reading its request that has had [`GRACE`] to send it.
fn evictable(connections: &[Connection]) -> Option<usize> {
    let now = Instant::now();
    connections
        .iter()
        .enumerate()
        .filter(|(_, c)| c.answer.is_none() && now >= c.since + GRACE)
        .min_by_key(|(_, c)| c.since)
        .map(|(i, _)| i)
}

/// Reads or writes what the connection allows now; false once it is done with.
fn progress(c: &mut Connection, metrics: &Metrics, rendered: &mut Rendered) -> bool {
    if c.answer.is_none() {
        let mut buffer = [0u8; 2048];
        loop {
            match c.stream.read(&mut buffer) {
                Ok(0) => return false,
                Ok(n) => {
                    let room = MAX_REQUEST - c.request.len();
                    c.request.extend_from_slice(&buffer[..n.min(room)]);
                    if let Some(answer) = answer(&c.request, c.peer, metrics, rendered) {
                        c.answer = Some(answer);
                        break;
                    }
                    if c.request.len() >= MAX_REQUEST {
                        c.answer = Some(plain(
                            "431 Request Header Fields Too Large",
                            "the request is larger than 8 KiB\n",
                        ));
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return false,
            }
        }
    }
    let Some((answer, sent)) = &mut c.answer else {
        return true;
    };
    while *sent < answer.len() {
        match c.stream.write(&answer[*sent..]) {
            Ok(0) => return false,
            Ok(n) => *sent += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
    let _ = c.stream.shutdown(std::net::Shutdown::Both);
    false
}

/// A whole request's answer, none sent yet; `None` while the head is incomplete.
fn answer(
    request: &[u8],
    peer: Option<std::net::IpAddr>,
    metrics: &Metrics,
    rendered: &mut Rendered,
) -> Option<(Vec<u8>, usize)> {
    let end = request.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&request[..end]);
    let mut lines = head.split("\r\n");
    let mut words = lines.next().unwrap_or("").split(' ');
    let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let headers: Vec<&str> = lines.collect();
    let header = |wanted: &str| {
        headers.iter().find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.trim()
                .eq_ignore_ascii_case(wanted)
                .then(|| value.trim().to_string())
        })
    };
    let accept = header("accept");
    if method != "GET" && method != "HEAD" {
        return Some(plain("405 Method Not Allowed", "GET /metrics\n"));
    }
    let path = path.split('?').next().unwrap_or("");
    if path != "/metrics" && path != "/" {
        return Some(plain("404 Not Found", "iospd serves /metrics\n"));
    }
    let format = Format::accepted(accept.as_deref());
    let generation = metrics.generation();
    let body = rendered.body(metrics, format);
    let who = super::scrapers::key(peer, header("user-agent").as_deref(), accept.as_deref());
    metrics.scraped(who, generation);
    let mut answer = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        format.content_type(),
        body.len()
    )
    .into_bytes();
    if method == "GET" {
        answer.extend_from_slice(&body);
    }
    Some((answer, 0))
}

/// A short plain-text answer.
fn plain(status: &str, text: &str) -> (Vec<u8>, usize) {
    let answer = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    );
    (answer.into_bytes(), 0)
}

#[cfg(test)]
mod tests {
    use super::super::RunInfo;
    use super::*;

    /// Sends `GET /metrics` on `stream`; the answer's status code.
    fn ask(mut stream: TcpStream) -> io::Result<u16> {
        stream.set_read_timeout(Some(Duration::from_secs(10)))?;
        stream.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")?;
        let mut answer = String::new();
        stream.read_to_string(&mut answer)?;
        Ok(answer
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(0))
    }

    #[test]
    fn a_flood_of_connections_does_not_push_out_a_scraper_before_it_could_ask() {
        let metrics = Metrics::new(RunInfo::default(), 1, vec![vec!["t.dat".into()]]);
        let server = Server::start("127.0.0.1:0".parse().unwrap(), metrics).unwrap();
        let address = server.address();
        // The scenario needs the scraper's request to follow its connection within GRACE; a
        // machine too busy for that gets another try.
        for _ in 0..5 {
            // A full table of connections that never ask, old enough to be pushed out.
            let idle: Vec<TcpStream> = (0..MAX_CONNECTIONS)
                .map(|_| TcpStream::connect(address).unwrap())
                .collect();
            std::thread::sleep(GRACE * 2);
            // A scraper connects; more connections than the table holds follow before it asks.
            let scraper = TcpStream::connect(address).unwrap();
            let connected = Instant::now();
            let flood: Vec<TcpStream> = (0..MAX_CONNECTIONS + 16)
                .map(|_| TcpStream::connect(address).unwrap())
                .collect();
            std::thread::sleep(GRACE / 4);
            if connected.elapsed() >= GRACE {
                continue;
            }
            let code = ask(scraper).expect("the scraper is answered, not pushed out");
            assert_eq!(code, 200);
            drop((idle, flood));
            return;
        }
        panic!("the machine never let the scraper ask within {GRACE:?} of its connection");
    }
}
