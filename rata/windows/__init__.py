"""Windows: the app's frontend in a desktop webview or headless Chromium."""
