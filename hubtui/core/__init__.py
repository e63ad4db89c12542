"""Rules both front ends share (the app and the headless commands); never imports Textual."""
