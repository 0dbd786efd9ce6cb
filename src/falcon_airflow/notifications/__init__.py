"""Telling people and systems about feed and process instances: Airflow assets, Falcon's JMS messages, mail, SLAs.

The modules here hold no Airflow import (except where a name says ``airflow``): they build identities, messages
and mails from plain values, so the provider pieces stay thin and the logic is tested without Airflow.
"""
