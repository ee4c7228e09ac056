"""cube-codegen: OpenAPI documents plus overlays in, a typed Python client package out."""

__version__ = "0.1.0"
