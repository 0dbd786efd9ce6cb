"""Falcon's server inside Airflow's api-server: Falcon's REST resources (``api/entities``, ``api/instance``,
``api/admin``, ``api/metadata``, ``api/extension``) as a FastAPI application that the provider plugin mounts at
``/falcon``. It authenticates every request (:mod:`.authentication`), decides on the server who may act
(:mod:`.access`), runs the operate actions and answers with Falcon's bodies. docs/server.md says how clients reach it.
"""
