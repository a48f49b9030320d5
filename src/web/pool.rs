//! Who answers a request, for every loopback server: never the thread that takes requests when
//! a body may come with it. tiny_http reads whatever body is left when a request is answered;
//! the gate in front ends that body for tiny_http as soon as an answer is written, or at its
//! body deadline, so answering a refusal takes no longer than that. Refusals go to one
//! answering thread (strangers can delay only each other's refusals); accepted requests get a
//! thread of their own, `limit` at once, and the rest are told the server is busy.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};

use tiny_http::Request;

use super::respond::HttpResponse;

pub(crate) struct Pool {
    /// Names the threads, e.g. `form-43123` (Linux keeps 15 characters of a thread's name).
    name: String,
    drain: Sender<(Request, HttpResponse)>,
    busy: Arc<AtomicUsize>,
    limit: usize,
    /// What a request over the limit is told (503).
    too_busy: fn() -> HttpResponse,
}

impl Pool {
    /// A pool serving at most `limit` requests at once, `too_busy` telling the others; starts
    /// the answering thread.
    pub(crate) fn start(
        name: &str,
        limit: usize,
        too_busy: fn() -> HttpResponse,
    ) -> std::io::Result<Pool> {
        let (drain, refused) = mpsc::channel::<(Request, HttpResponse)>();
        std::thread::Builder::new()
            .name(format!("{name}-sink"))
            .spawn(move || {
                for (request, response) in refused {
                    let _ = request.respond(response);
                }
            })?;
        Ok(Pool {
            name: name.to_string(),
            drain,
            busy: Arc::new(AtomicUsize::new(0)),
            limit,
            too_busy,
        })
    }

    /// Answers a refused request without letting its body hold anyone up.
    pub(crate) fn refuse(&self, request: Request, response: HttpResponse) {
        if super::may_have_body(&request) {
            // The drainer is gone only when the pool is: then there is nobody left to answer.
            let _ = self.drain.send((request, response));
        } else {
            let _ = request.respond(response);
        }
    }

    /// Runs `work` (which reads the body, if any, and answers) on a thread of its own, or says
    /// the server is busy when `limit` requests are being served already.
    pub(crate) fn accept(&self, request: Request, work: impl FnOnce(Request) + Send + 'static) {
        if self.busy.fetch_add(1, Ordering::SeqCst) >= self.limit {
            self.busy.fetch_sub(1, Ordering::SeqCst);
            self.refuse(request, (self.too_busy)());
            return;
        }
        let busy = Arc::clone(&self.busy);
        let spawned = std::thread::Builder::new()
            .name(format!("{}-body", self.name))
            .spawn(move || {
                work(request);
                busy.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            // The closure, and the request with it, are gone: tiny_http answers it with a 500.
            self.busy.fetch_sub(1, Ordering::SeqCst);
        }
    }
}
