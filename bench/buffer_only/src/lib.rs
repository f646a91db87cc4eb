//! A proxy-wasm HTTP filter that only buffers: it holds the response headers, waits for the
//! whole body, copies it into the VM and lets it through unchanged. `make bench` measures it
//! next to Envoy without a filter and with cardgate: what any filter that reads the whole body
//! before letting the answer go costs, so cardgate's own cost is the difference.

use proxy_wasm::traits::{Context, HttpContext, RootContext};
use proxy_wasm::types::{Action, ContextType, LogLevel};

proxy_wasm::main! {{
    proxy_wasm::set_log_level(LogLevel::Warn);
    proxy_wasm::set_root_context(|_| -> Box<dyn RootContext> { Box::new(Root) });
}}

struct Root;

impl Context for Root {}

impl RootContext for Root {
    fn create_http_context(&self, _context_id: u32) -> Option<Box<dyn HttpContext>> {
        Some(Box::new(BufferOnly))
    }

    fn get_type(&self) -> Option<ContextType> {
        Some(ContextType::HttpContext)
    }
}

struct BufferOnly;

impl Context for BufferOnly {}

impl HttpContext for BufferOnly {
    fn on_http_response_headers(&mut self, _num_headers: usize, end_of_stream: bool) -> Action {
        // Like cardgate: the headers wait until the body is known (the status could change).
        if end_of_stream {
            Action::Continue
        } else {
            Action::Pause
        }
    }

    fn on_http_response_body(&mut self, body_size: usize, end_of_stream: bool) -> Action {
        if !end_of_stream {
            return Action::Pause;
        }
        // The copy into the VM any body check needs; the bytes are then dropped unchanged.
        let body = self.get_http_response_body(0, body_size);
        std::hint::black_box(body);
        Action::Continue
    }
}
