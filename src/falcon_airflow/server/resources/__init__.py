"""Falcon's REST resources, one module per resource (``admin``, ``entities``, ``instances``, ``metadata``,
``extension``), each an ``APIRouter`` that :func:`falcon_airflow.server.app.create_app` includes."""
