//! Sandbox seam (placeholder until the sandbox lands).
