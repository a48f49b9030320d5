//! A multipart/form-data body written by hand (RFC 7578): text fields and files, each part
//! between boundary lines, for the few uploads Marvin makes (a recording to transcribe).

/// A body under construction; [`Multipart::finish`] gives its content type and bytes.
pub(crate) struct Multipart {
    boundary: String,
    body: Vec<u8>,
}

impl Multipart {
    /// An empty body whose parts are separated by `boundary`, which must not occur in any part
    /// (a random one, e.g. from `secret::random_hex`, does not in practice).
    pub(crate) fn new(boundary: &str) -> Self {
        Self {
            boundary: boundary.to_string(),
            body: Vec::new(),
        }
    }

    /// A text field `name` = `value`.
    pub(crate) fn text(mut self, name: &str, value: &str) -> Self {
        self.head(&format!("form-data; name=\"{}\"", quoted(name)), None);
        self.body.extend_from_slice(value.as_bytes());
        self.body.extend_from_slice(b"\r\n");
        self
    }

    /// A file field `name` holding `bytes`, sent as `filename` of type `content_type`.
    pub(crate) fn file(
        mut self,
        name: &str,
        filename: &str,
        content_type: &str,
        bytes: &[u8],
    ) -> Self {
        let disposition = format!(
            "form-data; name=\"{}\"; filename=\"{}\"",
            quoted(name),
            quoted(filename)
        );
        self.head(&disposition, Some(content_type));
        self.body.extend_from_slice(bytes);
        self.body.extend_from_slice(b"\r\n");
        self
    }

    /// The `Content-Type` header's value and the body, closed by the last boundary.
    pub(crate) fn finish(mut self) -> (String, Vec<u8>) {
        self.body
            .extend_from_slice(format!("--{}--\r\n", self.boundary).as_bytes());
        (
            format!("multipart/form-data; boundary={}", self.boundary),
            self.body,
        )
    }

    fn head(&mut self, disposition: &str, content_type: Option<&str>) {
        let mut head = format!(
            "--{}\r\nContent-Disposition: {disposition}\r\n",
            self.boundary
        );
        if let Some(content_type) = content_type {
            head.push_str(&format!("Content-Type: {content_type}\r\n"));
        }
        head.push_str("\r\n");
        self.body.extend_from_slice(head.as_bytes());
    }
}

/// A name as a quoted-string may hold it: quotes and line breaks percent-encoded, as browsers
/// do (RFC 7578 §2).
fn quoted(name: &str) -> String {
    name.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_and_files_are_framed_by_the_boundary() {
        let (content_type, body) = Multipart::new("b0undary")
            .text("model", "whisper-large-v3")
            .file("file", "say \"hi\".wav", "audio/wav", b"RIFF\x00\xff")
            .finish();
        assert_eq!(content_type, "multipart/form-data; boundary=b0undary");
        let mut expected = b"--b0undary\r\n\
Content-Disposition: form-data; name=\"model\"\r\n\r\n\
whisper-large-v3\r\n\
--b0undary\r\n\
Content-Disposition: form-data; name=\"file\"; filename=\"say %22hi%22.wav\"\r\n\
Content-Type: audio/wav\r\n\r\n"
            .to_vec();
        expected.extend_from_slice(b"RIFF\x00\xff\r\n--b0undary--\r\n");
        assert_eq!(body, expected);
    }

    #[test]
    fn an_empty_body_is_only_the_closing_boundary() {
        let (_, body) = Multipart::new("x").finish();
        assert_eq!(body, b"--x--\r\n");
    }
}
